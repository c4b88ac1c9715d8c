// Removes secrets from text and structured values before anything is stored or returned.
//
// Linear time matters: event payloads can be megabytes of command output. Every pattern here is
// built so that a failed match costs little: each starts with a literal prefix or a keyword,
// candidate starts are limited by a look-behind to the beginning of a token, and repeated parts
// are either a single character class (greedy, no alternation to backtrack into) or bounded.
// PEM blocks are found with indexOf, not a lazy `[\s\S]*?`, which is quadratic on many BEGINs.

export const REDACTED = "[REDACTED]";
const tag = (kind: string) => `[REDACTED:${kind}]`;

interface Rule {
  kind: string;
  re: RegExp;
  /** Builds the replacement from the match groups; default replaces the whole match. */
  replace?: (m: RegExpExecArray | string[], kind: string) => string;
}

// Token start: not preceded by a character that could belong to the same token.
const S = String.raw`(?<![A-Za-z0-9_\-])`;
const S_ALNUM = String.raw`(?<![A-Za-z0-9])`;

const keepPrefix = (m: string[], kind: string) => `${m[1]}${tag(kind)}`;

const TOKEN_RULES: Rule[] = [
  { kind: "anthropic-key", re: new RegExp(`${S}sk-ant-[A-Za-z0-9_\\-]{20,}`, "g") },
  { kind: "openai-key", re: new RegExp(`${S}sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\\-]{20,}`, "g") },
  { kind: "openai-key", re: new RegExp(`${S}sk-[A-Za-z0-9]{32,}`, "g") },
  { kind: "github-token", re: new RegExp(`${S}gh[pousr]_[A-Za-z0-9]{30,}`, "g") },
  { kind: "github-token", re: new RegExp(`${S}github_pat_[A-Za-z0-9_]{40,}`, "g") },
  { kind: "gitlab-token", re: new RegExp(`${S}gl(?:pat|dt|rt|ptt|ft|cbt|soat|oas)-[A-Za-z0-9_\\-]{20,}`, "g") },
  { kind: "slack-token", re: new RegExp(`${S}xox[abposre]-[A-Za-z0-9\\-]{10,}`, "g") },
  { kind: "slack-token", re: new RegExp(`${S}xapp-\\d-[A-Za-z0-9\\-]{10,}`, "g") },
  { kind: "slack-webhook", re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_\/+\-]{16,}/g },
  { kind: "discord-webhook", re: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/[0-9]{5,30}\/[A-Za-z0-9_\-]{20,}/g },
  { kind: "aws-access-key-id", re: new RegExp(`${S_ALNUM}(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])`, "g") },
  { kind: "google-api-key", re: new RegExp(`${S}AIza[A-Za-z0-9_\\-]{35}`, "g") },
  { kind: "google-oauth-token", re: new RegExp(`${S}ya29\\.[A-Za-z0-9_\\-]{20,}`, "g") },
  { kind: "google-client-secret", re: new RegExp(`${S}GOCSPX-[A-Za-z0-9_\\-]{20,}`, "g") },
  { kind: "stripe-key", re: new RegExp(`${S}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`, "g") },
  { kind: "stripe-webhook-secret", re: new RegExp(`${S}whsec_[A-Za-z0-9]{24,}`, "g") },
  { kind: "twilio-key", re: new RegExp(`${S_ALNUM}SK[0-9a-f]{32}(?![A-Za-z0-9])`, "g") },
  { kind: "sendgrid-key", re: new RegExp(`${S}SG\\.[A-Za-z0-9_\\-]{16,32}\\.[A-Za-z0-9_\\-]{30,64}`, "g") },
  { kind: "npm-token", re: new RegExp(`${S}npm_[A-Za-z0-9]{36,}`, "g") },
  { kind: "pypi-token", re: new RegExp(`${S}pypi-[A-Za-z0-9_\\-]{50,}`, "g") },
  { kind: "huggingface-token", re: new RegExp(`${S}hf_[A-Za-z0-9]{30,}`, "g") },
  { kind: "shopify-token", re: new RegExp(`${S}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`, "g") },
  { kind: "mailgun-key", re: new RegExp(`${S}key-[0-9a-f]{32}(?![A-Za-z0-9])`, "g") },
  { kind: "digitalocean-token", re: new RegExp(`${S}do[opr]_v1_[a-f0-9]{64}`, "g") },
  { kind: "docker-token", re: new RegExp(`${S}dckr_pat_[A-Za-z0-9_\\-]{20,}`, "g") },
  { kind: "heroku-key", re: new RegExp(`${S}HRKU-[A-Za-z0-9_\\-]{30,}`, "g") },
  { kind: "databricks-token", re: new RegExp(`${S}dapi[a-f0-9]{32}(?:-\\d)?(?![A-Za-z0-9])`, "g") },
  { kind: "age-secret-key", re: new RegExp(`${S}AGE-SECRET-KEY-1[0-9A-Z]{58}`, "g") },
  { kind: "linear-key", re: new RegExp(`${S}lin_api_[A-Za-z0-9]{32,}`, "g") },
  { kind: "groq-key", re: new RegExp(`${S}gsk_[A-Za-z0-9]{40,}`, "g") },
  { kind: "xai-key", re: new RegExp(`${S}xai-[A-Za-z0-9]{50,}`, "g") },
  { kind: "telegram-bot-token", re: new RegExp(`(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_\\-]{33}(?![A-Za-z0-9_\\-])`, "g") },
  {
    kind: "discord-token",
    re: new RegExp(`${S}[MNO][A-Za-z0-9_\\-]{23,27}\\.[A-Za-z0-9_\\-]{6}\\.[A-Za-z0-9_\\-]{27,40}(?![A-Za-z0-9_\\-])`, "g"),
  },
  { kind: "jwt", re: new RegExp(`${S}eyJ[A-Za-z0-9_\\-]{8,}\\.eyJ[A-Za-z0-9_\\-]{8,}\\.[A-Za-z0-9_\\-]*`, "g") },
  {
    kind: "azure-storage-key",
    re: /((?:AccountKey|SharedAccessKey|SharedAccessSignature)=)[A-Za-z0-9+\/%]{20,}={0,2}/gi,
    replace: keepPrefix,
  },
  {
    kind: "aws-secret-key",
    re: /(aws_?secret_?(?:access_?)?key["']?[ \t]{0,10}[:=][ \t]{0,10}["']?)[A-Za-z0-9\/+]{40}(?![A-Za-z0-9\/+])/gi,
    replace: keepPrefix,
  },
];

// scheme://user:password@host: keep scheme and user so the reader still knows what it was.
const URL_PASSWORD: Rule = {
  kind: "url-password",
  re: /(?<![A-Za-z0-9+.\-])([A-Za-z][A-Za-z0-9+.\-]{1,30}:\/\/[^\s:\/@"'<>]{0,256}:)(?!\[REDACTED)([^\s\/@"'<>]{1,256})@/g,
  replace: (m, kind) => `${m[1]}${tag(kind)}@`,
};

const AUTH_SCHEMES = "Basic|Bearer|Token|Digest|Bot|Negotiate";
const AUTH_HEADER: Rule = {
  kind: "authorization",
  re: new RegExp(
    String.raw`((?:proxy-)?authorization\\?["']?[ \t]{0,20}[:=][ \t]{0,20}\\?["']?[ \t]{0,5}` +
      String.raw`(?!(?:${AUTH_SCHEMES})[ \t]{1,5}\[REDACTED|\[REDACTED)(?:(?:${AUTH_SCHEMES})[ \t]{1,5})?)` +
      String.raw`[^\s"'\\,;]{4,}`,
    "gi",
  ),
  replace: (m) => {
    const scheme = /(basic|bearer|token|digest|bot|negotiate)[ \t]*$/i.exec(m[1])?.[1]?.toLowerCase();
    return `${m[1]}${tag(scheme === "basic" ? "basic-auth" : scheme === "bearer" ? "bearer-token" : "authorization")}`;
  },
};

const BEARER: Rule = {
  kind: "bearer-token",
  re: /(?<![A-Za-z0-9_])(Bearer[ \t]{1,5})[A-Za-z0-9._~+\/\-]{16,}=*/gi,
  replace: keepPrefix,
};

// key = value / key: value / "key": "value" where the key ends in a credential word. The key must
// END with the word (so `tokenizer`, `max_tokens`, `token_count` do not match), and the value is
// taken up to the closing quote, or to the end of the line/field when unquoted.
const CREDENTIAL_WORDS = [
  "password",
  "passwd",
  "passphrase",
  "secret",
  "token",
  "api[_\\-]?key",
  "(?:access|secret|private|signing|encryption|master|session|client|account)[_\\-]?key",
  "credentials?",
  "cookie",
].join("|");
const ASSIGNMENT: Rule = {
  kind: "secret",
  re: new RegExp(
    String.raw`(` +
      String.raw`(?:${CREDENTIAL_WORDS})(?![A-Za-z0-9])` + // keyword ends the key
      String.raw`\\?["']?[ \t]{0,20}(?::=|:|=)(?!=)[ \t]{0,20}` + // separator (also JSON inside a JSON string), not ==
      String.raw`)` +
      String.raw`(?!\[REDACTED|\\?["']?\[REDACTED)` +
      String.raw`(\\"(?:[^"\\\r\n]|\\[^"\r\n]){1,2000}(?:\\")?|"(?:[^"\\\r\n]|\\.){1,2000}"?|'[^'\r\n]{1,2000}'?|[^\s"'&,;}\]<>][^\r\n"'&,;}<>]{0,2000})`,
    "gi",
  ),
  replace: (m) => {
    const key = m[1];
    if (looksLikeCode(m[2])) return m[0];
    const kind = /pass/i.test(key) ? "password" : /cookie/i.test(key) ? "cookie" : "secret";
    const v = m[2];
    const q = v.startsWith('\\"') ? '\\"' : v[0] === '"' || v[0] === "'" ? v[0] : "";
    // Trailing spaces of an unquoted value are layout, not secret.
    const trail = q === "" ? (/[ \t]+$/.exec(v)?.[0] ?? "") : "";
    return `${key}${q}${tag(kind)}${q}${trail}`;
  },
};

// Source code mentions credentials all the time without containing one: `password: string;`,
// `token = getToken()`, `PASSWORD=$DB_PASSWORD`. Unquoted values shaped like code stay visible so
// diffs remain readable; a quoted literal (`password = "x"`) is still redacted.
const CODE_TYPES = /^(?:string|number|boolean|null|undefined|true|false|none|nil|str|int|bytes|any|unknown|never|object|optional|required)\b/i;
const CODE_REFERENCE = /^(?:process\.env|os\.environ|os\.getenv|getenv|env\.|\$\{?[A-Za-z_]|%[A-Za-z_]+%|(?:req|request|this|self|args|opts|options|config|settings|params|input|form|data|body|ctx|props|secrets|vars)\.)/;
const CODE_CALL = /^[A-Za-z_$][\w$.]*[ \t]*\(/;
// `a.b.c;` only with the semicolon: a bare `p4ss.word` could be a real password.
const CODE_MEMBER = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+[ \t]*;[ \t]*$/;

function looksLikeCode(value: string): boolean {
  if (value[0] === '"' || value[0] === "'" || value.startsWith('\\"')) return false;
  return CODE_TYPES.test(value) || CODE_REFERENCE.test(value) || CODE_CALL.test(value) || CODE_MEMBER.test(value);
}

// ODBC/ADO-style `;Pwd=...;` (a bare PWD= would hit the shell's working-directory variable).
const CONN_PWD: Rule = {
  kind: "password",
  re: /((?:;|^(?=[^\r\n;]{0,500};))[ \t]*pwd[ \t]*=[ \t]*)(?!\[REDACTED)[^;\r\n"']{1,500}/gim,
  replace: keepPrefix,
};

const BUILTIN_RULES: Rule[] = [...TOKEN_RULES, URL_PASSWORD, AUTH_HEADER, BEARER, ASSIGNMENT, CONN_PWD];

const PEM_BEGIN = /-----BEGIN ((?:[A-Z0-9]{1,12} ){0,3})PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END = /-----END (?:[A-Z0-9]{1,12} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;

const BASE64_LINE = /^[A-Za-z0-9+\/=]*$/;
// A line break as text holds it: a real one, or the two characters `\n` inside JSON.
const breakBefore = (s: string, i: number) => (s[i - 1] === "\n" ? 1 : s[i - 1] === "n" && s[i - 2] === "\\" ? 2 : 0);

/** Where the key body ending at `end` starts: back over whole lines of base64 (linear: each line is read once). */
function pemBodyStart(s: string, end: number): number {
  let start = end;
  while (start > 0) {
    const lineEnd = start - breakBefore(s, start);
    let lineStart = lineEnd;
    while (lineStart > 0 && breakBefore(s, lineStart) === 0) lineStart--;
    if (lineStart === start || !BASE64_LINE.test(s.slice(lineStart, lineEnd).trim().replace(/\\r$/, ""))) break;
    start = lineStart;
  }
  return start;
}

function redactPem(s: string): string {
  if (!s.includes("PRIVATE KEY")) return s;
  let out = "";
  let pos = 0;
  // A block whose beginning was cut off (the tail of a log, a stream split in two) is still secret: its body goes.
  PEM_BEGIN.lastIndex = 0;
  const firstBegin = PEM_BEGIN.exec(s)?.index ?? s.length;
  PEM_END.lastIndex = 0;
  const orphanEnd = PEM_END.exec(s);
  if (orphanEnd && orphanEnd.index < firstBegin) {
    out = s.slice(0, pemBodyStart(s, orphanEnd.index)) + tag("private-key");
    pos = orphanEnd.index + orphanEnd[0].length;
  }
  for (;;) {
    PEM_BEGIN.lastIndex = pos;
    const begin = PEM_BEGIN.exec(s);
    if (!begin) break;
    PEM_END.lastIndex = begin.index + begin[0].length;
    const end = PEM_END.exec(s);
    out += s.slice(pos, begin.index) + tag("private-key");
    // A block cut off mid-way (truncated output) is still secret: drop the rest.
    if (!end) return out;
    pos = end.index + end[0].length;
  }
  return out + s.slice(pos);
}

function applyRule(s: string, rule: Rule): string {
  rule.re.lastIndex = 0;
  const replace = rule.replace;
  if (!replace) return s.replace(rule.re, tag(rule.kind));
  return s.replace(rule.re, (...args: unknown[]) => {
    const groups = args.filter((a, i) => i < args.length - 2 && (typeof a === "string" || a === undefined)) as string[];
    return replace(groups.map((g) => g ?? ""), rule.kind);
  });
}

// Below this length no supported secret fits (the shortest is `pwd=x`-style assignments).
const MIN_CANDIDATE_LENGTH = 6;

export interface Redactor {
  redactText(s: string): string;
  redactValue(v: unknown): unknown;
}

/** Key names whose values are always hidden, compared with case, `_` and `-` ignored. */
const CREDENTIAL_KEY_SUFFIXES = [
  "password",
  "passwd",
  "passphrase",
  "secret",
  "token",
  "apikey",
  "authorization",
  "cookie",
  "privatekey",
  "accesskey",
  "secretkey",
  "signingkey",
  "encryptionkey",
  "sessionkey",
  "masterkey",
  "credential",
  "credentials",
];

export function isCredentialKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[_\-\s.]/g, "");
  return CREDENTIAL_KEY_SUFFIXES.some((suffix) => k.endsWith(suffix));
}

export function createRedactor(extraPatterns: RegExp[] = []): Redactor {
  const extra: Rule[] = extraPatterns.map((re) => ({
    kind: "custom",
    re: new RegExp(re.source, re.flags.includes("g") ? re.flags : `${re.flags}g`),
  }));
  const rules = [...BUILTIN_RULES, ...extra];

  function redactText(s: string): string {
    if (s.length < MIN_CANDIDATE_LENGTH) return s;
    let out = redactPem(s);
    for (const rule of rules) out = applyRule(out, rule);
    return out;
  }

  function redactValue(v: unknown): unknown {
    const seen = new WeakSet<object>();
    const walk = (x: unknown): unknown => {
      if (typeof x === "string") return redactText(x);
      if (x === null || typeof x !== "object") return x;
      if (seen.has(x)) return "[Circular]";
      seen.add(x);
      try {
        if (Array.isArray(x)) return x.map(walk);
        if (x instanceof Date) return x.toISOString();
        if (x instanceof Uint8Array) return x;
        const out: Record<string, unknown> = {};
        for (const [k, val] of Object.entries(x)) {
          out[k] = isCredentialKey(k) && val !== null && val !== undefined && typeof val !== "boolean" ? REDACTED : walk(val);
        }
        return out;
      } finally {
        // Shared (non-cyclic) references are copied each time they appear.
        seen.delete(x);
      }
    };
    return walk(v);
  }

  return { redactText, redactValue };
}

/** The built-in rules, as the state database and the service apply them to everything they keep or return. */
export const redactor: Redactor = createRedactor();
export const redactText = redactor.redactText;
export const redactValue = redactor.redactValue;

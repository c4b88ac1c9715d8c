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
  /**
   * Literals of which every match contains at least one (lower-case ones are looked for in the lower-cased text, for
   * the case-insensitive rules): a text holding none of them is not scanned at all. Most text holds none, and one
   * `includes` costs far less than a regex pass with look-behinds.
   */
  needs?: readonly string[];
  lower?: boolean;
}

// Token start: not preceded by a character that could belong to the same token.
const S = String.raw`(?<![A-Za-z0-9_\-])`;
const S_ALNUM = String.raw`(?<![A-Za-z0-9])`;

const keepPrefix = (m: string[], kind: string) => `${m[1]}${tag(kind)}`;

const TOKEN_RULES: Rule[] = [
  { kind: "anthropic-key", re: new RegExp(`${S}sk-ant-[A-Za-z0-9_\\-]{20,}`, "g"), needs: ["sk-ant-"] },
  { kind: "openai-key", re: new RegExp(`${S}sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\\-]{20,}`, "g"), needs: ["sk-"] },
  { kind: "openai-key", re: new RegExp(`${S}sk-[A-Za-z0-9]{32,}`, "g"), needs: ["sk-"] },
  { kind: "github-token", re: new RegExp(`${S}gh[pousr]_[A-Za-z0-9]{30,}`, "g"), needs: ["gh"] },
  { kind: "github-token", re: new RegExp(`${S}github_pat_[A-Za-z0-9_]{40,}`, "g"), needs: ["github_pat_"] },
  { kind: "gitlab-token", re: new RegExp(`${S}gl(?:pat|dt|rt|ptt|ft|cbt|soat|oas)-[A-Za-z0-9_\\-]{20,}`, "g"), needs: ["gl"] },
  { kind: "slack-token", re: new RegExp(`${S}xox[abposre]-[A-Za-z0-9\\-]{10,}`, "g"), needs: ["xox"] },
  { kind: "slack-token", re: new RegExp(`${S}xapp-\\d-[A-Za-z0-9\\-]{10,}`, "g"), needs: ["xapp-"] },
  { kind: "slack-webhook", re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_\/+\-]{16,}/g, needs: ["hooks.slack.com"] },
  { kind: "discord-webhook", re: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/[0-9]{5,30}\/[A-Za-z0-9_\-]{20,}/g, needs: ["discord"] },
  { kind: "aws-access-key-id", re: new RegExp(`${S_ALNUM}(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])`, "g"), needs: ["AKIA", "ASIA", "ABIA", "ACCA"] },
  { kind: "google-api-key", re: new RegExp(`${S}AIza[A-Za-z0-9_\\-]{35}`, "g"), needs: ["AIza"] },
  { kind: "google-oauth-token", re: new RegExp(`${S}ya29\\.[A-Za-z0-9_\\-]{20,}`, "g"), needs: ["ya29."] },
  { kind: "google-client-secret", re: new RegExp(`${S}GOCSPX-[A-Za-z0-9_\\-]{20,}`, "g"), needs: ["GOCSPX-"] },
  { kind: "stripe-key", re: new RegExp(`${S}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`, "g"), needs: ["_live_", "_test_"] },
  { kind: "stripe-webhook-secret", re: new RegExp(`${S}whsec_[A-Za-z0-9]{24,}`, "g"), needs: ["whsec_"] },
  { kind: "twilio-key", re: new RegExp(`${S_ALNUM}SK[0-9a-f]{32}(?![A-Za-z0-9])`, "g"), needs: ["SK"] },
  { kind: "sendgrid-key", re: new RegExp(`${S}SG\\.[A-Za-z0-9_\\-]{16,32}\\.[A-Za-z0-9_\\-]{30,64}`, "g"), needs: ["SG."] },
  { kind: "npm-token", re: new RegExp(`${S}npm_[A-Za-z0-9]{36,}`, "g"), needs: ["npm_"] },
  { kind: "pypi-token", re: new RegExp(`${S}pypi-[A-Za-z0-9_\\-]{50,}`, "g"), needs: ["pypi-"] },
  { kind: "huggingface-token", re: new RegExp(`${S}hf_[A-Za-z0-9]{30,}`, "g"), needs: ["hf_"] },
  { kind: "shopify-token", re: new RegExp(`${S}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`, "g"), needs: ["shp"] },
  { kind: "mailgun-key", re: new RegExp(`${S}key-[0-9a-f]{32}(?![A-Za-z0-9])`, "g"), needs: ["key-"] },
  { kind: "digitalocean-token", re: new RegExp(`${S}do[opr]_v1_[a-f0-9]{64}`, "g"), needs: ["_v1_"] },
  { kind: "docker-token", re: new RegExp(`${S}dckr_pat_[A-Za-z0-9_\\-]{20,}`, "g"), needs: ["dckr_pat_"] },
  { kind: "heroku-key", re: new RegExp(`${S}HRKU-[A-Za-z0-9_\\-]{30,}`, "g"), needs: ["HRKU-"] },
  { kind: "databricks-token", re: new RegExp(`${S}dapi[a-f0-9]{32}(?:-\\d)?(?![A-Za-z0-9])`, "g"), needs: ["dapi"] },
  { kind: "age-secret-key", re: new RegExp(`${S}AGE-SECRET-KEY-1[0-9A-Z]{58}`, "g"), needs: ["AGE-SECRET-KEY-1"] },
  { kind: "linear-key", re: new RegExp(`${S}lin_api_[A-Za-z0-9]{32,}`, "g"), needs: ["lin_api_"] },
  { kind: "groq-key", re: new RegExp(`${S}gsk_[A-Za-z0-9]{40,}`, "g"), needs: ["gsk_"] },
  { kind: "xai-key", re: new RegExp(`${S}xai-[A-Za-z0-9]{50,}`, "g"), needs: ["xai-"] },
  { kind: "telegram-bot-token", re: new RegExp(`(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_\\-]{33}(?![A-Za-z0-9_\\-])`, "g"), needs: [":AA"] },
  {
    kind: "discord-token",
    re: new RegExp(`${S}[MNO][A-Za-z0-9_\\-]{23,27}\\.[A-Za-z0-9_\\-]{6}\\.[A-Za-z0-9_\\-]{27,40}(?![A-Za-z0-9_\\-])`, "g"),
    needs: ["."],
  },
  { kind: "jwt", re: new RegExp(`${S}eyJ[A-Za-z0-9_\\-]{8,}\\.eyJ[A-Za-z0-9_\\-]{8,}\\.[A-Za-z0-9_\\-]*`, "g"), needs: ["eyJ"] },
  {
    kind: "azure-storage-key",
    re: /((?:AccountKey|SharedAccessKey|SharedAccessSignature)=)[A-Za-z0-9+\/%]{20,}={0,2}/gi,
    replace: keepPrefix,
    needs: ["accountkey=", "sharedaccesskey=", "sharedaccesssignature="],
    lower: true,
  },
  {
    kind: "aws-secret-key",
    re: /(aws_?secret_?(?:access_?)?key["']?[ \t]{0,10}[:=][ \t]{0,10}["']?)[A-Za-z0-9\/+]{40}(?![A-Za-z0-9\/+])/gi,
    replace: keepPrefix,
    needs: ["aws"],
    lower: true,
  },
];

// scheme://user:password@host: keep scheme and user so the reader still knows what it was.
const URL_PASSWORD: Rule = {
  kind: "url-password",
  re: /(?<![A-Za-z0-9+.\-])([A-Za-z][A-Za-z0-9+.\-]{1,30}:\/\/[^\s:\/@"'<>]{0,256}:)(?!\[REDACTED)([^\s\/@"'<>]{1,256})@/g,
  replace: (m, kind) => `${m[1]}${tag(kind)}@`,
  needs: ["://"],
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
  needs: ["authorization"],
  lower: true,
};

const BEARER: Rule = {
  kind: "bearer-token",
  re: /(?<![A-Za-z0-9_])(Bearer[ \t]{1,5})[A-Za-z0-9._~+\/\-]{16,}=*/gi,
  replace: keepPrefix,
  needs: ["bearer"],
  lower: true,
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
  // Every credential word above holds one of these.
  needs: ["pass", "secret", "token", "key", "credential", "cookie"],
  lower: true,
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
  needs: ["pwd"],
  lower: true,
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

function applyRule(s: string, rule: Rule & { tagged: string }): string {
  rule.re.lastIndex = 0;
  const replace = rule.replace;
  if (!replace) return s.replace(rule.re, rule.tagged);
  return s.replace(rule.re, (...args: unknown[]) => {
    const groups = args.filter((a, i) => i < args.length - 2 && (typeof a === "string" || a === undefined)) as string[];
    return replace(groups.map((g) => g ?? ""), rule.kind);
  });
}

function holdsAny(text: string, literals: readonly string[]): boolean {
  for (const l of literals) if (text.includes(l)) return true;
  return false;
}

/** How many clean texts (and key names) are remembered, and the longest remembered: a bound on memory, not a tuning. */
const CLEAN_CACHE_ENTRIES = 1024;
const CLEAN_CACHE_CHARS = 512;

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

// Structured values repeat a handful of key names (command, status, exit_code…): each is judged once.
const credentialKeys = new Map<string, boolean>();
function credentialKey(key: string): boolean {
  let hit = credentialKeys.get(key);
  if (hit === undefined) {
    hit = isCredentialKey(key);
    if (key.length <= CLEAN_CACHE_CHARS) {
      if (credentialKeys.size >= CLEAN_CACHE_ENTRIES) credentialKeys.clear();
      credentialKeys.set(key, hit);
    }
  }
  return hit;
}

export interface RedactorOptions {
  /** Skip a rule when the text holds none of its literals (default); false runs every rule on every text. */
  skipByLiteral?: boolean;
}

export function createRedactor(extraPatterns: RegExp[] = [], opts: RedactorOptions = {}): Redactor {
  const extra: Rule[] = extraPatterns.map((re) => ({
    kind: "custom",
    re: new RegExp(re.source, re.flags.includes("g") ? re.flags : `${re.flags}g`),
  }));
  const skip = opts.skipByLiteral !== false;
  const rules = [...BUILTIN_RULES, ...extra].map((r) => ({ ...r, tagged: tag(r.kind), needs: skip ? r.needs : undefined }));

  // Texts found clean, so a text met again (ingest, the store and the service answer each redact the same command)
  // costs one lookup. Redaction depends on nothing but the text and this redactor's rules, so the answer is the same.
  const clean = new Set<string>();

  function redactText(s: string): string {
    if (s.length < MIN_CANDIDATE_LENGTH) return s;
    const remember = s.length <= CLEAN_CACHE_CHARS;
    if (remember && clean.has(s)) return s;
    const out = redactUncached(s);
    if (remember && out === s) {
      if (clean.size >= CLEAN_CACHE_ENTRIES) clean.clear();
      clean.add(s);
    }
    return out;
  }

  function redactUncached(s: string): string {
    let out = redactPem(s);
    // Looked for in the text as the earlier rules left it: a replacement may add a literal a later rule needs.
    let lower: string | undefined;
    for (const rule of rules) {
      if (rule.needs) {
        const text = rule.lower ? (lower ??= out.toLowerCase()) : out;
        if (!holdsAny(text, rule.needs)) continue;
      }
      const next = applyRule(out, rule);
      if (next !== out) {
        out = next;
        lower = undefined;
      }
    }
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
        // Object.keys, not entries: the same keys and values without an array per key.
        for (const k of Object.keys(x)) {
          const val = (x as Record<string, unknown>)[k];
          out[k] = credentialKey(k) && val !== null && val !== undefined && typeof val !== "boolean" ? REDACTED : walk(val);
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

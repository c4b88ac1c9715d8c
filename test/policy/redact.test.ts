import { describe, expect, it } from "vitest";
import { createRedactor, isCredentialKey, REDACTED, redactText, redactValue } from "../../src/policy/redact.ts";
import { alnum, b64url, hex, pemBody, SECRET_CORPUS as cases } from "../support/secret-corpus.ts";

describe("redactText: secret corpus", () => {
  it("covers at least 30 formats", () => {
    expect(new Set(cases.map((c) => c.kind)).size).toBeGreaterThanOrEqual(30);
  });

  for (const c of cases) {
    it(`redacts ${c.name}`, () => {
      const out = redactText(c.text);
      expect(out).not.toContain(c.secret);
      expect(out).toContain(`[REDACTED:${c.kind}]`);
    });
  }

  it("keeps the words around a secret", () => {
    expect(redactText(`token for CI: ghp_${alnum(36)} (expires soon)`)).toBe("token for CI: [REDACTED:github-token] (expires soon)");
    expect(redactText("postgres://app:pw12345@db/app")).toBe("postgres://app:[REDACTED:url-password]@db/app");
    expect(redactText("Authorization: Bearer abcdefghijklmnop1234")).toBe("Authorization: Bearer [REDACTED:bearer-token]");
    expect(redactText('{"password": "x1", "user": "bob"}')).toBe('{"password": "[REDACTED:password]", "user": "bob"}');
    expect(redactText("API_KEY=abc123  \nNEXT=1")).toBe("API_KEY=[REDACTED:secret]  \nNEXT=1");
    expect(redactText('const password = "hunter2";')).toBe('const password = "[REDACTED:password]";');
    expect(redactText("password=p4ss.word")).toBe("password=[REDACTED:password]");
  });

  it("redacts every secret when several share a line", () => {
    const line = `A=ghp_${alnum(36)} B=xoxb-1-2-${alnum(20)} C=AKIAIOSFODNN7EXAMPLE`;
    const out = redactText(line);
    expect(out).toBe("A=[REDACTED:github-token] B=[REDACTED:slack-token] C=[REDACTED:aws-access-key-id]");
  });

  it("is idempotent", () => {
    for (const c of cases) {
      const once = redactText(c.text);
      expect(redactText(once)).toBe(once);
    }
  });

  it("redacts text between two PEM blocks only inside the blocks", () => {
    const block = `-----BEGIN PRIVATE KEY-----\n${pemBody}\n-----END PRIVATE KEY-----`;
    expect(redactText(`a ${block} middle ${block} z`)).toBe("a [REDACTED:private-key] middle [REDACTED:private-key] z");
  });

  it("redacts the body of a key whose BEGIN was cut off (the tail of a log, the second half of a stream)", () => {
    const tail = `${alnum(30, 5)}\n${alnum(64, 1)}\n${alnum(20, 4)}==\n-----END RSA PRIVATE KEY-----\nnext line`;
    expect(redactText(`the log said\n${tail}`)).toBe("the log said\n[REDACTED:private-key]\nnext line");
    expect(redactText(tail)).toBe("[REDACTED:private-key]\nnext line");
    const escaped = JSON.stringify({ k: tail });
    expect(redactText(escaped)).not.toContain(alnum(64, 1));
    expect(redactText(`${alnum(64, 1)}\n-----END PRIVATE KEY----- then -----BEGIN PRIVATE KEY-----\n${pemBody}`)).toBe("[REDACTED:private-key] then [REDACTED:private-key]");
  });
});

describe("redactText: things that are not secrets", () => {
  const keep = [
    "commit 3f2a9c1e8b7d6f5a4c3b2a1e0f9d8c7b6a5f4e3d",
    "Merge: 1a2b3c4 5d6e7f8",
    "id 550e8400-e29b-41d4-a716-446655440000",
    "thread 019a3b2c-4d5e-7f80-9a1b-2c3d4e5f6a7b",
    "the tokenizer splits words into tokens",
    "max_tokens: 4096",
    "tokenizer: bert-base-uncased",
    "token_count = 12",
    "inputTokens: 1200, outputTokens: 300",
    "aGVsbG8= is base64 for hello",
    "/home/user/project/src/secret_santa.ts",
    "src/auth/token-refresh.test.ts",
    "PWD=/home/user/project",
    "sk-learn is not a package name",
    "const key = await getKey();",
    "The password policy requires 12 characters.",
    "https://example.com/path?q=1&page=2",
    "ssh git@github.com:org/repo.git",
    "https://user@example.com/repo.git",
    "http://localhost:8080/api",
    "The bearer of this letter",
    "AKIAEXAMPLE is too short",
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "secret_name: db-creds",
    "npm install --save-exact zod@4.1.0",
    "Basic usage: run the tool",
    "if (password === confirm) {",
    "const password = req.body.password;",
    "  password: string;",
    "token = getToken(scope)",
    "PASSWORD=${DB_PASSWORD}",
    "export API_KEY=$OPENAI_API_KEY",
    "api_key = os.environ['API_KEY']",
    "const secret = config.auth.secret;",
    "token: null,",
  ];
  for (const text of keep) {
    it(`keeps ${JSON.stringify(text)}`, () => {
      expect(redactText(text)).toBe(text);
    });
  }
});

describe("redactValue", () => {
  it("hides values under credential-like keys and redacts strings elsewhere, without touching the input", () => {
    const input = {
      user: "bob",
      password: "hunter2",
      Api_Key: "k",
      nested: { clientSecret: "c", ACCESS_TOKEN: "t", refresh_token: "r", note: `use ghp_${alnum(36)}` },
      headers: [{ Authorization: "Bearer x" }, { cookie: "a=b" }],
      private_key: { pem: "..." },
      tokenUsage: { inputTokens: 10, totalTokens: 20 },
      hasToken: true,
      token: null,
      tokenizer: "bpe",
      pin: 1234,
    };
    const copy = structuredClone(input);
    const out = redactValue(input);
    expect(input).toEqual(copy);
    expect(out).toEqual({
      user: "bob",
      password: REDACTED,
      Api_Key: REDACTED,
      nested: { clientSecret: REDACTED, ACCESS_TOKEN: REDACTED, refresh_token: REDACTED, note: "use [REDACTED:github-token]" },
      headers: [{ Authorization: REDACTED }, { cookie: REDACTED }],
      private_key: REDACTED,
      tokenUsage: { inputTokens: 10, totalTokens: 20 },
      hasToken: true,
      token: null,
      tokenizer: "bpe",
      pin: 1234,
    });
  });

  it("survives cycles and keeps shared references", () => {
    const shared = { a: "x" };
    const cyclic: Record<string, unknown> = { shared, again: shared };
    cyclic.self = cyclic;
    expect(redactValue(cyclic)).toEqual({ shared: { a: "x" }, again: { a: "x" }, self: "[Circular]" });
  });

  it("classifies keys", () => {
    for (const k of ["password", "db_password", "passwd", "secret", "client-secret", "api_key", "apiKey", "x-api-key", "authorization", "Cookie", "set-cookie", "private_key", "access_token", "idToken", "credentials", "aws_secret_access_key"]) {
      expect(isCredentialKey(k), k).toBe(true);
    }
    for (const k of ["tokenUsage", "max_tokens", "tokenizer", "token_count", "secretName", "env_key", "keyboard", "author", "passes"]) {
      expect(isCredentialKey(k), k).toBe(false);
    }
  });
});

describe("createRedactor", () => {
  it("adds extra patterns on top of the built-in ones", () => {
    const r = createRedactor([/ACME-[0-9]{6}/]);
    expect(r.redactText(`ACME-123456 and ghp_${alnum(36)}`)).toBe("[REDACTED:custom] and [REDACTED:github-token]");
    expect(redactText("ACME-123456")).toBe("ACME-123456");
    expect(r.redactValue({ m: "id ACME-654321" })).toEqual({ m: "id [REDACTED:custom]" });
  });
});

describe("large adversarial input", () => {
  const MB = 1024 * 1024;
  const fill = (unit: string) => unit.repeat(Math.ceil((5 * MB) / unit.length)).slice(0, 5 * MB);
  const adversarial = [
    "a".repeat(5 * MB),
    fill("eyJ"),
    fill("eyJaaaaaaaaaa."),
    fill("-----BEGIN RSA PRIVATE KEY-----"),
    fill("-----END RSA PRIVATE KEY-----\n"),
    fill("password="),
    fill('password="'),
    fill("a://b:"),
    fill("sk-"),
    fill("Authorization: "),
    fill("Bearer "),
    fill("A_"),
    fill("1234567890:AA"),
    fill("\\\"token\\\": \\\""),
  ];
  it("handles 5 MB of base64 lines before an orphan END marker in linear time", () => {
    const body = `${alnum(64)}\n`.repeat(80_000);
    expect(redactText(`head words\n${body}-----END PRIVATE KEY-----`)).toBe("head words\n[REDACTED:private-key]");
  });

  it("handles 5 MB of each pathological shape and still finds a secret at the end", () => {
    const secret = `ghp_${alnum(36)}`;
    for (const body of adversarial) {
      const out = redactText(`${body} ${secret}`);
      expect(out).not.toContain(secret);
      expect(out.length).toBeGreaterThan(0);
    }
  });

  it("handles a 5 MB mixed log with secrets sprinkled through it", () => {
    const line = `INFO request ok id=550e8400-e29b-41d4-a716-446655440000 token=${alnum(20)} url=https://u:p4ss@h/x\n`;
    const text = line.repeat(Math.ceil((5 * MB) / line.length));
    const out = redactText(text);
    expect(out).not.toContain(alnum(20));
    expect(out).not.toContain("p4ss");
    expect(out).toContain("550e8400-e29b-41d4-a716-446655440000");
  });
});

describe("connection-string passwords", () => {
  it("redacts Pwd= at the start of a connection string but not the shell's PWD variable", () => {
    expect(redactText("Pwd=abc123;Server=db")).toBe("Pwd=[REDACTED:password];Server=db");
    expect(redactText("PWD=/srv/app\nHOME=/root")).toBe("PWD=/srv/app\nHOME=/root");
  });
});

describe("skipping a rule when the text holds none of its literals", () => {
  // The same redactor with every rule run on every text: the skip may only save time, never change a result.
  const everyRule = createRedactor([], { skipByLiteral: false });
  const fragments = [
    ...cases.map((c) => c.secret),
    ...cases.map((c) => c.text),
    "password",
    "PassPhrase",
    "SECRET",
    "Token",
    "api-key",
    "Cookie",
    "Authorization",
    "proxy-AUTHORIZATION",
    "BEARER ",
    "aws_SECRET_access_KEY",
    "AccountKey=",
    "sharedaccesssignature=",
    "pwd",
    ";PWD=",
    "://",
    "@",
    "=",
    ": ",
    '"',
    "'",
    "\\\"",
    "\n",
    " ",
    ";",
    ".",
    "İ",
    "ſ",
    "\u212A",
    "[REDACTED:secret]",
    alnum(24),
    alnum(48, 5),
    hex(32),
    hex(64),
  ];
  // A fixed pseudo-random sequence, so a failure is reproducible.
  let seed = 12345;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const caseFlip = (s: string) => (next(3) === 0 ? s.toUpperCase() : next(2) === 0 ? s.toLowerCase() : s);
  const mixes = Array.from({ length: 600 }, () => Array.from({ length: 1 + next(8) }, () => caseFlip(fragments[next(fragments.length)]!)).join(""));

  it("gives exactly what running every rule gives, on the corpus and on 600 mixes of its pieces", () => {
    for (const text of [...cases.map((c) => c.text), ...mixes]) expect(redactText(text), JSON.stringify(text)).toBe(everyRule.redactText(text));
  });
});

describe("texts met again (remembered as clean)", () => {
  it("gives on every repeat what the first pass gave, for clean texts, secrets, and a clean text grown into a secret", () => {
    const r = createRedactor();
    const fresh = () => createRedactor();
    const clean = "npm test -- --run src/app.test.ts";
    const texts = [clean, `${clean} ghp_${alnum(36)}`, ...cases.map((c) => c.text), clean, ...cases.map((c) => c.text)];
    for (let pass = 0; pass < 3; pass++) for (const t of texts) expect(r.redactText(t), JSON.stringify(t)).toBe(fresh().redactText(t));
  });

  it("still hides credential keys in values seen many times", () => {
    const r = createRedactor();
    for (let i = 0; i < 3; i++) expect(r.redactValue({ command: "ls", api_token: "plain-value", nested: [{ Password: 1 }] })).toEqual({ command: "ls", api_token: REDACTED, nested: [{ Password: REDACTED }] });
  });
});

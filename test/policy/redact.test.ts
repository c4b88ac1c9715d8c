import { describe, expect, it } from "vitest";
import { createRedactor, isCredentialKey, REDACTED, redactText, redactValue } from "../../src/policy/redact.ts";

// Fake but format-correct secrets. Built from a repeating alphabet so nothing here is a live key.
const alnum = (n: number, seed = 0) => {
  const chars = "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY";
  let s = "";
  for (let i = 0; i < n; i++) s += chars[(i * 7 + seed) % chars.length];
  return s;
};
const hex = (n: number) => "0123456789abcdef".repeat(Math.ceil(n / 16)).slice(0, n).split("").reverse().join("");
const b64url = (n: number) => alnum(n, 3).replace(/a/g, "-").replace(/Q/g, "_");

const pemBody = `MIIEowIBAAKCAQEA${alnum(60)}\n${alnum(64, 1)}\n${alnum(64, 2)}\n${alnum(20, 4)}==`;

interface Case {
  name: string;
  text: string;
  secret: string;
  kind: string;
}

const cases: Case[] = [
  { name: "OpenAI classic", secret: `sk-${alnum(48)}`, kind: "openai-key", text: "OPENAI_KEY is sk-" + alnum(48) + " ok" },
  { name: "OpenAI project", secret: `sk-proj-${b64url(120)}`, kind: "openai-key", text: `using sk-proj-${b64url(120)}` },
  { name: "Anthropic", secret: `sk-ant-api03-${b64url(93)}AA`, kind: "anthropic-key", text: `key sk-ant-api03-${b64url(93)}AA` },
  { name: "GitHub ghp", secret: `ghp_${alnum(36)}`, kind: "github-token", text: `git remote set-url origin x ghp_${alnum(36)}` },
  { name: "GitHub gho", secret: `gho_${alnum(36, 1)}`, kind: "github-token", text: `gho_${alnum(36, 1)}` },
  { name: "GitHub ghu", secret: `ghu_${alnum(36, 2)}`, kind: "github-token", text: `(ghu_${alnum(36, 2)})` },
  { name: "GitHub ghs", secret: `ghs_${alnum(36, 3)}`, kind: "github-token", text: `"ghs_${alnum(36, 3)}"` },
  { name: "GitHub ghr", secret: `ghr_${alnum(36, 4)}`, kind: "github-token", text: `ghr_${alnum(36, 4)}.` },
  { name: "GitHub fine-grained", secret: `github_pat_11A${alnum(19)}_${alnum(59, 5)}`, kind: "github-token", text: `tok: github_pat_11A${alnum(19)}_${alnum(59, 5)}` },
  { name: "GitLab", secret: `glpat-${b64url(20)}`, kind: "gitlab-token", text: `PRIVATE-TOKEN glpat-${b64url(20)}` },
  { name: "Slack bot", secret: `xoxb-123456789012-1234567890123-${alnum(24)}`, kind: "slack-token", text: `slack xoxb-123456789012-1234567890123-${alnum(24)}` },
  { name: "Slack user", secret: `xoxp-123456789012-123456789012-${alnum(32)}`, kind: "slack-token", text: `xoxp-123456789012-123456789012-${alnum(32)}` },
  { name: "Slack webhook", secret: `T00000000/B00000000/${alnum(24)}`, kind: "slack-webhook", text: `post to https://hooks.slack.com/services/T00000000/B00000000/${alnum(24)} now` },
  { name: "AWS access key id", secret: "AKIAIOSFODNN7EXAMPLE", kind: "aws-access-key-id", text: "aws_access_key_id = AKIAIOSFODNN7EXAMPLE" },
  { name: "AWS STS key id", secret: "ASIAY34FZKBOKMUTVV7A", kind: "aws-access-key-id", text: "id ASIAY34FZKBOKMUTVV7A" },
  { name: "AWS secret", secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", kind: "aws-secret-key", text: "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" },
  { name: "Google API key", secret: `AIzaSy${b64url(33)}`, kind: "google-api-key", text: `key=AIzaSy${b64url(33)}` },
  { name: "Stripe live", secret: `sk_live_${alnum(24)}`, kind: "stripe-key", text: `Stripe.apiKey = sk_live_${alnum(24)};` },
  { name: "Stripe restricted", secret: `rk_live_${alnum(24, 1)}`, kind: "stripe-key", text: `rk_live_${alnum(24, 1)}` },
  { name: "Twilio API key", secret: `SK${hex(32)}`, kind: "twilio-key", text: `twilio SK${hex(32)} used` },
  { name: "SendGrid", secret: `SG.${b64url(22)}.${b64url(43)}`, kind: "sendgrid-key", text: `SENDGRID SG.${b64url(22)}.${b64url(43)}` },
  { name: "npm", secret: `npm_${alnum(36)}`, kind: "npm-token", text: `//registry.npmjs.org/:_authToken npm_${alnum(36)}` },
  { name: "PyPI", secret: `pypi-AgEIcHlwaS5vcmc${b64url(60)}`, kind: "pypi-token", text: `password pypi-AgEIcHlwaS5vcmc${b64url(60)}` },
  {
    name: "JWT",
    secret: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${b64url(43)}`,
    kind: "jwt",
    text: `cookie value eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${b64url(43)} end`,
  },
  { name: "Bearer header", secret: `abcDEF123456ghiJKL789_-.x`, kind: "bearer-token", text: `curl -H "X: Bearer abcDEF123456ghiJKL789_-.x"` },
  { name: "Authorization Basic", secret: "dXNlcjpodW50ZXIyMjI=", kind: "basic-auth", text: "Authorization: Basic dXNlcjpodW50ZXIyMjI=" },
  { name: "Authorization token", secret: "q1w2e3r4t5y6u7", kind: "authorization", text: '{"Authorization": "token q1w2e3r4t5y6u7"}' },
  {
    name: "PEM RSA",
    secret: alnum(64, 1),
    kind: "private-key",
    text: `key:\n-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY-----\ndone`,
  },
  {
    name: "PEM EC",
    secret: alnum(64, 2),
    kind: "private-key",
    text: `-----BEGIN EC PRIVATE KEY-----\n${pemBody}\n-----END EC PRIVATE KEY-----`,
  },
  {
    name: "PEM OpenSSH",
    secret: alnum(64, 1),
    kind: "private-key",
    text: `-----BEGIN OPENSSH PRIVATE KEY-----\n${pemBody}\n-----END OPENSSH PRIVATE KEY-----`,
  },
  {
    name: "PEM PKCS8 inside JSON (escaped newlines)",
    secret: alnum(64, 1),
    kind: "private-key",
    text: JSON.stringify({ k: `-----BEGIN PRIVATE KEY-----\n${pemBody}\n-----END PRIVATE KEY-----\n` }),
  },
  {
    name: "PGP private block",
    secret: alnum(64, 2),
    kind: "private-key",
    text: `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${pemBody}\n-----END PGP PRIVATE KEY BLOCK-----`,
  },
  { name: "truncated PEM", secret: alnum(64, 2), kind: "private-key", text: `-----BEGIN RSA PRIVATE KEY-----\n${pemBody}` },
  { name: "URL credentials", secret: "s3cr3tP4ss", kind: "url-password", text: "git clone https://alice:s3cr3tP4ss@git.example.com/r.git" },
  { name: "postgres", secret: "pg-Pa55w0rd", kind: "url-password", text: "DATABASE_URL=postgres://app:pg-Pa55w0rd@db.internal:5432/app" },
  { name: "mysql", secret: "my5qlpw", kind: "url-password", text: "mysql://root:my5qlpw@localhost/db" },
  { name: "mongodb+srv", secret: "m0ngoPw", kind: "url-password", text: "mongodb+srv://user:m0ngoPw@cluster0.x.mongodb.net/test" },
  { name: "env password", secret: "hunter2!", kind: "password", text: "DB_PASSWORD=hunter2!\nOTHER=1" },
  { name: "env quoted secret", secret: "shh it is", kind: "secret", text: 'export CLIENT_SECRET="shh it is"' },
  { name: "yaml password", secret: "correct horse battery", kind: "password", text: "db:\n  password: correct horse battery\n  user: x" },
  { name: "json password", secret: "pa\\\"ss", kind: "password", text: '{"user": "a", "password": "pa\\"ss"}' },
  { name: "json api key", secret: "k-12345678", kind: "secret", text: '{"apiKey":"k-12345678"}' },
  { name: "json in a json string", secret: "zzTopSecret", kind: "secret", text: '"{\\"access_token\\": \\"zzTopSecret\\"}"' },
  { name: "ini secret", secret: "abcdef", kind: "secret", text: "[auth]\nsecret = abcdef\n" },
  { name: "query token", secret: "qwertyuiop", kind: "secret", text: "GET /cb?access_token=qwertyuiop&x=1" },
  { name: "ODBC Pwd", secret: "0dbcPw", kind: "password", text: "Server=db;Database=x;Uid=sa;Pwd=0dbcPw;" },
  {
    name: "Azure storage",
    secret: `${alnum(86)}==`,
    kind: "azure-storage-key",
    text: `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${alnum(86)}==;EndpointSuffix=core.windows.net`,
  },
  { name: "Hugging Face", secret: `hf_${alnum(34)}`, kind: "huggingface-token", text: `HF hf_${alnum(34)}` },
  {
    name: "Discord bot token",
    secret: `MTA${alnum(23)}.Gh${alnum(4, 1)}.${b64url(38)}`,
    kind: "discord-token",
    text: `bot.run("MTA${alnum(23)}.Gh${alnum(4, 1)}.${b64url(38)}")`,
  },
  { name: "Heroku", secret: `HRKU-AA${b64url(58)}`, kind: "heroku-key", text: `heroku HRKU-AA${b64url(58)}` },
  { name: "Shopify", secret: `shpat_${hex(32)}`, kind: "shopify-token", text: `X-Shopify shpat_${hex(32)}` },
  { name: "Mailgun", secret: `key-${hex(32)}`, kind: "mailgun-key", text: `api:key-${hex(32)}` },
  { name: "DigitalOcean", secret: `dop_v1_${hex(64)}`, kind: "digitalocean-token", text: `doctl dop_v1_${hex(64)}` },
  { name: "Docker PAT", secret: `dckr_pat_${b64url(27)}`, kind: "docker-token", text: `docker login -p dckr_pat_${b64url(27)}` },
  { name: "Telegram", secret: `123456789:AA${b64url(33)}`, kind: "telegram-bot-token", text: `bot123456789:AA${b64url(33)} ` },
  { name: "Google OAuth", secret: `ya29.${b64url(60)}`, kind: "google-oauth-token", text: `ya29.${b64url(60)}` },
  { name: "Databricks", secret: `dapi${hex(32)}`, kind: "databricks-token", text: `dapi${hex(32)}` },
  { name: "Stripe webhook secret", secret: `whsec_${alnum(32)}`, kind: "stripe-webhook-secret", text: `whsec_${alnum(32)}` },
  { name: "Cookie header", secret: "sess-abcdef123", kind: "cookie", text: "Cookie: sid=sess-abcdef123" },
];

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

// Test support: the project's secret corpus, fake but format-correct secrets of every kind the redactor knows, each in
// the words it usually comes with. The redactor's own tests and the every-channel leak test both use it.
// Fake but format-correct secrets. Built from a repeating alphabet so nothing here is a live key.
export const alnum = (n: number, seed = 0) => {
  const chars = "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY";
  let s = "";
  for (let i = 0; i < n; i++) s += chars[(i * 7 + seed) % chars.length];
  return s;
};
export const hex = (n: number) => "0123456789abcdef".repeat(Math.ceil(n / 16)).slice(0, n).split("").reverse().join("");
export const b64url = (n: number) => alnum(n, 3).replace(/a/g, "-").replace(/Q/g, "_");

export const pemBody = `MIIEowIBAAKCAQEA${alnum(60)}\n${alnum(64, 1)}\n${alnum(64, 2)}\n${alnum(20, 4)}==`;

export interface SecretCase {
  name: string;
  text: string;
  secret: string;
  kind: string;
}

export const SECRET_CORPUS: SecretCase[] = [
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

/**
 * The cases whose secret can be searched for byte for byte wherever it went (in JSON, in SQLite pages): no quote,
 * backslash or line break, and long enough not to turn up by chance. One per format kind at least.
 */
export function leakProbes(): SecretCase[] {
  return SECRET_CORPUS.filter((c) => c.secret.length >= 10 && /^[A-Za-z0-9+/=._:-]+$/.test(c.secret));
}

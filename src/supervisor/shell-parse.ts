// A small POSIX-shell reader for the approval policy. It does not run or expand anything: it
// recovers which programs a command line would start, with which words, so the policy can judge
// `bash -lc 'cd .. && rm -rf "$X"'` as well as plain `rm -rf x`.
//
// Expansions cannot be known ahead of time, so they are kept inside word text as markers:
// HOME_MARK for `~` / `$HOME`, varMark(name) for other variables, SUB_MARK for `$(…)`, `` `…` ``,
// `<(…)` and `>(…)`. The parsed substitutions themselves are kept in `Word.subs`.

export const HOME_MARK = "\uE000HOME\uE001";
export const SUB_MARK = "\uE002";
export const varMark = (name: string) => `\uE000${name}\uE001`;
const MARK_RE = /[\uE000-\uE002]/;

export interface Word {
  /** Quote-removed text, expansions as markers. */
  text: string;
  /** Some part was quoted or escaped. */
  quoted: boolean;
  /** Has an unquoted `*`, `?` or `[`. */
  glob: boolean;
  subs: ShellList[];
  /** Here-document body, for `<<` redirect targets. */
  heredoc?: string;
}

export interface Redirect {
  op: string;
  target: Word;
}

export interface SimpleCommand {
  type: "simple";
  assigns: Word[];
  argv: Word[];
  redirects: Redirect[];
}

export interface GroupCommand {
  type: "group";
  body: ShellList;
  redirects: Redirect[];
}

export type ShellCommand = SimpleCommand | GroupCommand;

export interface Pipeline {
  commands: ShellCommand[];
}

export interface ShellList {
  pipelines: Pipeline[];
}

export interface ParseResult {
  list: ShellList;
  /** Anything the reader could not make sense of; the policy treats a non-empty list as a risk. */
  errors: string[];
}

/** True when the word's value depends on something other than $HOME (a variable, a substitution). */
export function isDynamic(word: Word): boolean {
  return MARK_RE.test(word.text.split(HOME_MARK).join(""));
}

/** Markers turned back into shell-like text for messages. */
export function displayWord(text: string): string {
  return text
    .split(HOME_MARK)
    .join("~")
    .replace(/\uE000([^\uE001]*)\uE001/g, (_m, name: string) => (name.startsWith("~") ? name : `$${name}`))
    .replace(/\uE002/g, "$(…)");
}

const MAX_DEPTH = 40;
const OPERATORS = ["&&", "||", ";;", "|&", "&>>", "&>", ">>", ">|", ">&", "<<<", "<<-", "<<", "<&", "<>", ">", "<", "&", "|", ";", "(", ")", "\n"];
const REDIRECT_OPS = new Set(["&>>", "&>", ">>", ">|", ">&", "<<<", "<<-", "<<", "<&", "<>", ">", "<"]);

type Token = { kind: "word"; word: Word } | { kind: "op"; op: string } | { kind: "eof" };

interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  target: Word;
}

export function parseShell(src: string, depth = 0): ParseResult {
  if (depth > MAX_DEPTH) return { list: { pipelines: [] }, errors: ["nesting is too deep"] };
  const parser = new Parser(src, depth);
  const list = parser.parseTop();
  return { list, errors: parser.errors };
}

class Parser {
  pos = 0;
  errors: string[] = [];
  private pending: PendingHeredoc[] = [];

  constructor(
    private readonly src: string,
    private depth: number,
  ) {}

  parseTop(): ShellList {
    const list = this.parseList(null);
    while (this.peek().kind !== "eof") {
      const t = this.next();
      this.errors.push(`unexpected ${t.kind === "op" ? JSON.stringify(t.op) : "word"}`);
      list.pipelines.push(...this.parseList(null).pipelines);
    }
    return list;
  }

  // ---- lists, pipelines, commands ----

  private parseList(terminator: ")" | "}" | null): ShellList {
    const pipelines: Pipeline[] = [];
    if (++this.depth > MAX_DEPTH) {
      this.errors.push("nesting is too deep");
      this.pos = this.src.length;
      this.depth--;
      return { pipelines };
    }
    for (;;) {
      const t = this.peek();
      if (t.kind === "eof") break;
      if (t.kind === "op") {
        if ([";", "\n", "&", ";;"].includes(t.op)) {
          this.next();
          continue;
        }
        if (t.op === ")") break;
      }
      if (terminator === "}" && t.kind === "word" && t.word.text === "}" && !t.word.quoted) break;
      const before = this.pos;
      const pipeline = this.parsePipeline(terminator);
      if (pipeline.commands.length > 0) pipelines.push(pipeline);
      if (this.pos === before) {
        const bad = this.next();
        this.errors.push(`unexpected ${bad.kind === "op" ? JSON.stringify(bad.op) : "token"}`);
      }
      const after = this.peek();
      if (after.kind === "op" && (after.op === "&&" || after.op === "||")) this.next();
    }
    this.depth--;
    return { pipelines };
  }

  private parsePipeline(terminator: ")" | "}" | null): Pipeline {
    const commands: ShellCommand[] = [];
    for (;;) {
      const cmd = this.parseCommand(terminator);
      if (cmd) commands.push(cmd);
      const t = this.peek();
      if (t.kind === "op" && (t.op === "|" || t.op === "|&")) {
        this.next();
        while (this.peekIsNewline()) this.next();
        continue;
      }
      return { commands };
    }
  }

  private parseCommand(terminator: ")" | "}" | null): ShellCommand | undefined {
    const t = this.peek();
    if (t.kind === "op" && t.op === "(") {
      this.next();
      const body = this.parseList(")");
      this.expectOp(")");
      return { type: "group", body, redirects: this.parseRedirects() };
    }
    if (t.kind === "word" && t.word.text === "{" && !t.word.quoted) {
      this.next();
      const body = this.parseList("}");
      const close = this.peek();
      if (close.kind === "word" && close.word.text === "}") this.next();
      else this.errors.push("missing '}'");
      return { type: "group", body, redirects: this.parseRedirects() };
    }
    const cmd: SimpleCommand = { type: "simple", assigns: [], argv: [], redirects: [] };
    for (;;) {
      const tok = this.peek();
      if (tok.kind === "word") {
        if (terminator === "}" && cmd.argv.length === 0 && tok.word.text === "}" && !tok.word.quoted) break;
        this.next();
        if (cmd.argv.length === 0 && /^[A-Za-z_][A-Za-z0-9_]*\+?=/.test(tok.word.text)) cmd.assigns.push(tok.word);
        else cmd.argv.push(tok.word);
        continue;
      }
      if (tok.kind === "op" && REDIRECT_OPS.has(tok.op)) {
        this.next();
        cmd.redirects.push(this.redirectTarget(tok.op));
        continue;
      }
      if (tok.kind === "op" && tok.op === "(" && cmd.argv.length === 1 && cmd.assigns.length === 0) {
        // `name() body`: a function definition. Its body is assessed as if it ran, which is
        // what a fork bomb does the moment it is defined and called.
        const save = this.pos;
        this.next();
        const close = this.peek();
        if (close.kind === "op" && close.op === ")") {
          this.next();
          while (this.peekIsNewline()) this.next();
          const body = this.parseCommand(terminator);
          return body ?? cmd;
        }
        this.pos = save;
      }
      break;
    }
    return cmd.argv.length || cmd.assigns.length || cmd.redirects.length ? cmd : undefined;
  }

  private parseRedirects(): Redirect[] {
    const out: Redirect[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === "op" && REDIRECT_OPS.has(t.op)) {
        this.next();
        out.push(this.redirectTarget(t.op));
      } else return out;
    }
  }

  private redirectTarget(op: string): Redirect {
    const t = this.peek();
    if (t.kind !== "word") {
      this.errors.push(`redirect ${op} has no target`);
      return { op, target: { text: "", quoted: false, glob: false, subs: [] } };
    }
    this.next();
    if (op === "<<" || op === "<<-") {
      const target: Word = { ...t.word, heredoc: "" };
      this.pending.push({ delimiter: t.word.text, stripTabs: op === "<<-", target });
      return { op, target };
    }
    return { op, target: t.word };
  }

  private expectOp(op: string): void {
    const t = this.peek();
    if (t.kind === "op" && t.op === op) this.next();
    else this.errors.push(`missing ${JSON.stringify(op)}`);
  }

  private peekIsNewline(): boolean {
    const t = this.peek();
    return t.kind === "op" && t.op === "\n";
  }

  // ---- tokens ----

  // One token of lookahead, cached: re-reading a word would re-parse its substitutions, which
  // doubles the work at every nesting level.
  private lookahead: { at: number; token: Token; end: number } | undefined;

  private peek(): Token {
    if (this.lookahead && this.lookahead.at === this.pos) return this.lookahead.token;
    const at = this.pos;
    const token = this.readToken();
    this.lookahead = { at, token, end: this.pos };
    this.pos = at;
    return token;
  }

  private next(): Token {
    if (this.lookahead && this.lookahead.at === this.pos) {
      this.pos = this.lookahead.end;
      const t = this.lookahead.token;
      this.lookahead = undefined;
      return t;
    }
    return this.readToken();
  }

  private readToken(): Token {
    const s = this.src;
    for (;;) {
      while (this.pos < s.length && (s[this.pos] === " " || s[this.pos] === "\t" || s[this.pos] === "\r")) this.pos++;
      if (s[this.pos] === "\\" && s[this.pos + 1] === "\n") {
        this.pos += 2;
        continue;
      }
      if (s[this.pos] === "#") {
        while (this.pos < s.length && s[this.pos] !== "\n") this.pos++;
        continue;
      }
      break;
    }
    if (this.pos >= s.length) return { kind: "eof" };
    const c = s[this.pos];
    if (";&|()<>\n".includes(c) && !((c === "<" || c === ">") && s[this.pos + 1] === "(")) {
      const op = OPERATORS.find((o) => s.startsWith(o, this.pos))!;
      this.pos += op.length;
      if (op === "\n" && this.pending.length > 0) this.readHeredocBodies();
      return { kind: "op", op };
    }
    const word = this.readWord();
    // `2>file`, `2>&1`: a bare number right before a redirect is its file descriptor.
    if (!word.quoted && /^[0-9]+$/.test(word.text) && (s[this.pos] === ">" || s[this.pos] === "<")) {
      return this.readToken();
    }
    return { kind: "word", word };
  }

  private readHeredocBodies(): void {
    const s = this.src;
    for (const h of this.pending) {
      const lines: string[] = [];
      let closed = false;
      while (this.pos < s.length) {
        let end = s.indexOf("\n", this.pos);
        if (end < 0) end = s.length;
        let line = s.slice(this.pos, end);
        this.pos = Math.min(end + 1, s.length);
        if (h.stripTabs) line = line.replace(/^\t+/, "");
        if (line === h.delimiter) {
          closed = true;
          break;
        }
        lines.push(line);
      }
      if (!closed) this.errors.push(`here-document ${JSON.stringify(h.delimiter)} is not closed`);
      h.target.heredoc = lines.join("\n");
    }
    this.pending = [];
  }

  private readWord(): Word {
    const s = this.src;
    const w: Word = { text: "", quoted: false, glob: false, subs: [] };
    const start = this.pos;
    while (this.pos < s.length) {
      const c = s[this.pos];
      if (c === " " || c === "\t" || c === "\r" || c === "\n") break;
      if ((c === "<" || c === ">") && s[this.pos + 1] === "(") {
        this.pos += 2;
        w.subs.push(this.parseNested(")"));
        w.text += SUB_MARK;
        continue;
      }
      if (";&|()<>".includes(c)) break;
      if (c === "\\") {
        if (s[this.pos + 1] === "\n") {
          this.pos += 2;
          continue;
        }
        w.quoted = true;
        w.text += s[this.pos + 1] ?? "";
        this.pos += 2;
        continue;
      }
      if (c === "'") {
        const end = s.indexOf("'", this.pos + 1);
        w.quoted = true;
        if (end < 0) {
          this.errors.push("unterminated single quote");
          w.text += s.slice(this.pos + 1);
          this.pos = s.length;
        } else {
          w.text += s.slice(this.pos + 1, end);
          this.pos = end + 1;
        }
        continue;
      }
      if (c === '"') {
        w.quoted = true;
        this.pos++;
        this.readDoubleQuoted(w);
        continue;
      }
      if (c === "$") {
        this.readDollar(w, false);
        continue;
      }
      if (c === "`") {
        this.readBackticks(w);
        continue;
      }
      if (c === "~" && this.pos === start) {
        const m = /^~([A-Za-z0-9._-]*)/.exec(s.slice(this.pos, this.pos + 256))!;
        const after = s[this.pos + m[0].length];
        const ends = after === undefined || after === "/" || " \t\r\n;&|()<>".includes(after);
        if (m[1] === "" && ends) w.text += HOME_MARK;
        else w.text += ends ? varMark(m[0]) : m[0];
        this.pos += m[0].length;
        continue;
      }
      if (c === "*" || c === "?" || c === "[") w.glob = true;
      w.text += c;
      this.pos++;
    }
    return w;
  }

  private readDoubleQuoted(w: Word): void {
    const s = this.src;
    while (this.pos < s.length) {
      const c = s[this.pos];
      if (c === '"') {
        this.pos++;
        return;
      }
      if (c === "\\" && this.pos + 1 < s.length) {
        const n = s[this.pos + 1];
        if (n === "\n") {
          this.pos += 2;
          continue;
        }
        w.text += '$`"\\'.includes(n) ? n : `\\${n}`;
        this.pos += 2;
        continue;
      }
      if (c === "$") {
        this.readDollar(w, true);
        continue;
      }
      if (c === "`") {
        this.readBackticks(w);
        continue;
      }
      w.text += c;
      this.pos++;
    }
    this.errors.push("unterminated double quote");
  }

  private readDollar(w: Word, inDouble: boolean): void {
    const s = this.src;
    const n = s[this.pos + 1];
    if (n === "(" && s[this.pos + 2] === "(") {
      // $(( arithmetic )): its value is a number, never a command.
      let depth = 0;
      let i = this.pos + 1;
      for (; i < s.length; i++) {
        if (s[i] === "(") depth++;
        else if (s[i] === ")" && --depth === 0) break;
      }
      this.pos = i + 1;
      w.text += varMark("((…))");
      return;
    }
    if (n === "(") {
      this.pos += 2;
      w.subs.push(this.parseNested(")"));
      w.text += SUB_MARK;
      return;
    }
    if (n === "{") {
      const end = s.indexOf("}", this.pos + 2);
      const inner = end < 0 ? s.slice(this.pos + 2) : s.slice(this.pos + 2, end);
      if (end < 0) this.errors.push("unterminated ${");
      this.pos = end < 0 ? s.length : end + 1;
      w.text += inner === "HOME" ? HOME_MARK : varMark(inner);
      return;
    }
    if (n === "'" && !inDouble) {
      // $'…' (ANSI-C quoting) can spell any command, e.g. $'\x72m'.
      this.pos += 2;
      w.quoted = true;
      while (this.pos < s.length && s[this.pos] !== "'") {
        if (s[this.pos] === "\\" && this.pos + 1 < s.length) {
          const e = s[this.pos + 1];
          const hexm = /^x([0-9A-Fa-f]{1,2})/.exec(s.slice(this.pos + 1, this.pos + 4));
          const octm = /^([0-7]{1,3})/.exec(s.slice(this.pos + 1, this.pos + 4));
          if (hexm) {
            w.text += String.fromCharCode(parseInt(hexm[1], 16));
            this.pos += 1 + hexm[0].length;
          } else if (octm) {
            w.text += String.fromCharCode(parseInt(octm[1], 8));
            this.pos += 1 + octm[0].length;
          } else {
            w.text += ({ n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"' } as Record<string, string>)[e] ?? e;
            this.pos += 2;
          }
        } else w.text += s[this.pos++];
      }
      this.pos++;
      return;
    }
    if (n === '"' && !inDouble) {
      this.pos += 2;
      w.quoted = true;
      this.readDoubleQuoted(w);
      return;
    }
    const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(s.slice(this.pos + 1, this.pos + 200));
    if (name) {
      w.text += name[0] === "HOME" ? HOME_MARK : varMark(name[0]);
      this.pos += 1 + name[0].length;
      return;
    }
    w.text += "$";
    this.pos++;
  }

  private readBackticks(w: Word): void {
    const s = this.src;
    let i = this.pos + 1;
    let inner = "";
    for (; i < s.length && s[i] !== "`"; i++) {
      if (s[i] === "\\" && i + 1 < s.length && "`\\$".includes(s[i + 1])) inner += s[++i];
      else inner += s[i];
    }
    if (i >= s.length) this.errors.push("unterminated backquote");
    this.pos = Math.min(i + 1, s.length);
    const nested = parseShell(inner, this.depth + 1);
    this.errors.push(...nested.errors);
    w.subs.push(nested.list);
    w.text += SUB_MARK;
  }

  private parseNested(close: ")"): ShellList {
    const list = this.parseList(close);
    this.expectOp(close);
    return list;
  }
}

// The tokens half of the policy's shell reader: words (quotes, escapes, $-expansions, substitutions, here-documents)
// and operators, with one token of lookahead. The grammar on top of it is in shell-parse.ts.
import { HOME_MARK, SUB_MARK, varMark, type ShellList, type Word } from "./shell-ast.ts";

export const MAX_DEPTH = 40;
const OPERATORS = ["&&", "||", ";;", "|&", "&>>", "&>", ">>", ">|", ">&", "<<<", "<<-", "<<", "<&", "<>", ">", "<", "&", "|", ";", "(", ")", "\n"];
export const REDIRECT_OPS = new Set(["&>>", "&>", ">>", ">|", ">&", "<<<", "<<-", "<<", "<&", "<>", ">", "<"]);

export type Token = { kind: "word"; word: Word } | { kind: "op"; op: string } | { kind: "eof" };

export interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  target: Word;
}

export abstract class ShellLexer {
  pos = 0;
  errors: string[] = [];
  protected pending: PendingHeredoc[] = [];

  constructor(
    protected readonly src: string,
    protected depth: number,
  ) {}

  /** A nested `$(…)` / `<(…)` parsed by the grammar up to its closing parenthesis. */
  protected abstract parseNested(close: ")"): ShellList;
  /** A backquoted or otherwise separate script, parsed one level deeper. */
  protected abstract parseInner(inner: string): { list: ShellList; errors: string[] };

  // ---- tokens ----

  // One token of lookahead, cached: re-reading a word would re-parse its substitutions, which
  // doubles the work at every nesting level.
  private lookahead: { at: number; token: Token; end: number } | undefined;

  protected peek(): Token {
    if (this.lookahead && this.lookahead.at === this.pos) return this.lookahead.token;
    const at = this.pos;
    const token = this.readToken();
    this.lookahead = { at, token, end: this.pos };
    this.pos = at;
    return token;
  }

  protected next(): Token {
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
    const nested = this.parseInner(inner);
    this.errors.push(...nested.errors);
    w.subs.push(nested.list);
    w.text += SUB_MARK;
  }

}

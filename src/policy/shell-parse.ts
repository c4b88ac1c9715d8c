// A small POSIX-shell reader for the approval policy. It does not run or expand anything: it
// recovers which programs a command line would start, with which words, so the policy can judge
// `bash -lc 'cd .. && rm -rf "$X"'` as well as plain `rm -rf x`.
//
// Expansions cannot be known ahead of time, so they are kept inside word text as markers:
// HOME_MARK for `~` / `$HOME`, varMark(name) for other variables, SUB_MARK for `$(…)`, `` `…` ``,
// `<(…)` and `>(…)`. The parsed substitutions themselves are kept in `Word.subs`.
import { type GroupCommand, type ParseResult, type Pipeline, type Redirect, type ShellCommand, type ShellList, type SimpleCommand, type Word } from "./shell-ast.ts";
import { MAX_DEPTH, REDIRECT_OPS, ShellLexer } from "./shell-lexer.ts";

export function parseShell(src: string, depth = 0): ParseResult {
  if (depth > MAX_DEPTH) return { list: { pipelines: [] }, errors: ["nesting is too deep"] };
  const parser = new Parser(src, depth);
  const list = parser.parseTop();
  return { list, errors: parser.errors };
}

class Parser extends ShellLexer {
  protected parseInner(inner: string): ParseResult {
    return parseShell(inner, this.depth + 1);
  }

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

  protected parseNested(close: ")"): ShellList {
    const list = this.parseList(close);
    this.expectOp(close);
    return list;
  }
}


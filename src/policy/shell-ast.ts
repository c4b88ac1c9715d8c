// The syntax tree of the policy's shell reader: words with expansion markers, commands, pipelines, lists, and the
// helpers that read markers back. Shared by the lexer, the parser and the risk rules.

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

// The approval policy. Codex asks; the supervisor answers; the bridge refuses answers that are
// unsafe. Nothing is approved automatically here: this module only grades commands and checks
// the supervisor's decision against that grade.
//
// Choices worth knowing:
// - Commands are read with a real (small) shell parser, after unwrapping `bash -lc '…'`, `sh -c`,
//   `env`, `sudo`, `command`, `nohup`, `timeout`, `xargs` and friends, so quoting tricks
//   (`r''m`, `\rm`, `$'\x72m'`) do not hide a program.
// - Only program positions count: `echo sudo` or `echo "rm -rf /"` print text and are normal.
//   Text printed by echo/printf is not scanned for credential paths either (only where it is
//   redirected to).
// - Paths are normalized lexically (`..` is folded; symlinks are not followed) against the
//   project root, following `cd` within one command line. A path that depends on a variable or
//   a substitution cannot be resolved ahead of time and makes a delete high risk.
import { homedir } from "node:os";
import { posix } from "node:path";
import { isInside } from "../containment.ts";
import { displayWord, HOME_MARK, isDynamic, type ShellCommand, type ShellList, type SimpleCommand, type Word } from "./shell-ast.ts";
import { parseShell } from "./shell-parse.ts";
import { ProgramRules, type PathKind } from "./program-rules.ts";
import {
  RANK,
  SHELLS,
  INTERPRETERS,
  DOWNLOADERS,
  ESCALATORS,
  TEXT_ONLY,
  DELETERS,
  DISK_FORMATTERS,
  DISK_TOOLS,
  POWER,
  BENIGN_DEVICES,
  BLOCK_DEVICES,
  programName,
  skipOptions,
  leadingAssignments,
  optionValue,
  compile,
  FORK_BOMB,
  FORK_BOMB_FN,
  type RiskLevel,
  type CommandAssessment,
  type AssessContext,
  type State,
  type StageInfo,
} from "./risk-tables.ts";

export type { AssessContext, CommandAssessment, RiskLevel } from "./risk-tables.ts";

const MAX_UNWRAP = 12;

class Assessor extends ProgramRules {
  scripts: string[] = [];
  private depth = 0;

  constructor(
    readonly projectRoot: string,
    readonly home: string,
  ) {
    super();
  }

  script(text: string, state: State): StageInfo {
    this.scripts.push(text);
    if (++this.depth > MAX_UNWRAP) {
      this.add("high", "the command nests shells too deeply to be checked");
      this.depth--;
      return { downloads: false };
    }
    const parsed = parseShell(text);
    if (parsed.errors.length > 0) {
      this.add("high", `the command could not be fully parsed (${parsed.errors[0]}), so it cannot be checked`);
    }
    const info = this.list(parsed.list, state);
    this.depth--;
    return info;
  }

  list(list: ShellList, state: State): StageInfo {
    const info: StageInfo = { downloads: false };
    for (const pipeline of list.pipelines) {
      const stages = pipeline.commands.map((c) => this.command(c, state));
      // `curl -o i.sh URL && sh i.sh` is curl | sh in two steps.
      if (info.downloads && stages.some((s) => s.runsFile)) {
        this.add("high", "it runs a script it has just downloaded, before anyone could review it");
      }
      for (let j = 1; j < stages.length; j++) {
        const runner = stages[j].stdinRunner;
        if (!runner) continue;
        if (stages.slice(0, j).some((s) => s.downloads)) {
          this.add("forbidden", `it pipes a download straight into ${runner}, running code nobody has reviewed`);
        }
        // `echo 'rm -rf /' | sh`, `cat <<EOF | bash`: what is piped in is the real command.
        if (SHELLS.has(runner) || ESCALATORS.has(runner)) {
          for (const feed of stages.slice(0, j).flatMap((s) => s.feeds ?? [])) this.script(feed, { cwd: state.cwd });
        }
      }
      if (stages.some((s) => s.downloads)) info.downloads = true;
      if (stages.some((s) => s.runsFile)) info.runsFile = true;
      const first = stages.find((s) => s.stdinRunner);
      if (first && !info.stdinRunner) info.stdinRunner = first.stdinRunner;
    }
    return info;
  }

  command(cmd: ShellCommand, state: State): StageInfo {
    if (cmd.type === "group") {
      const inner = this.list(cmd.body, state);
      for (const r of cmd.redirects) this.redirect(r.op, r.target, state);
      return inner;
    }
    return this.simple(cmd, state);
  }

  /** Assesses the substitutions in a word; true when one of them downloads something. */
  private subs(word: Word, state: State): boolean {
    let downloads = false;
    for (const sub of word.subs) {
      if (++this.depth > MAX_UNWRAP) {
        this.add("high", "the command nests substitutions too deeply to be checked");
      } else if (this.list(sub, { cwd: state.cwd }).downloads) downloads = true;
      this.depth--;
    }
    return downloads;
  }

  private redirect(op: string, target: Word, state: State): void {
    this.subs(target, state);
    if (op === "<<" || op === "<<-" || op === ">&" || op === "<&") return;
    const path = this.resolve(target, state);
    if (path && op !== "<" && op !== "<<<") {
      if (BLOCK_DEVICES.test(path.path)) this.add("forbidden", `it writes directly to the disk device ${path.path}`);
      else if (path.path.startsWith("/dev/") && !BENIGN_DEVICES.test(path.path)) this.add("high", `it writes to the device ${path.path}`);
    }
    this.credentialWord(target);
  }

  private simple(cmd: SimpleCommand, state: State): StageInfo {
    const info = this.simpleInner(cmd, state);
    const feeds: string[] = [];
    const head = cmd.argv[0];
    if (head && !isDynamic(head) && (programName(head.text) === "echo" || programName(head.text) === "printf")) {
      feeds.push(cmd.argv.slice(1).map((w) => w.text).join(" "));
    }
    for (const r of cmd.redirects) {
      if (r.target.heredoc !== undefined) feeds.push(r.target.heredoc);
      else if (r.op === "<<<") feeds.push(r.target.text);
    }
    return feeds.length > 0 ? { ...info, feeds } : info;
  }

  private simpleInner(cmd: SimpleCommand, state: State): StageInfo {
    const downloadSub = [...cmd.assigns, ...cmd.argv].map((w) => this.subs(w, state)).some(Boolean);
    let heredocDownload = false;
    for (const r of cmd.redirects) {
      this.redirect(r.op, r.target, state);
      if (r.op === "<<<" && r.target.subs.length > 0) heredocDownload ||= this.subsDownload(r.target);
    }
    let argv = cmd.argv;
    // Keywords that only introduce the real command.
    while (argv.length > 0 && !argv[0].quoted && ["if", "then", "else", "elif", "do", "while", "until", "!", "{", "}"].includes(argv[0].text)) {
      argv = argv.slice(1);
    }
    if (argv.length === 0) return { downloads: false };
    if (!argv[0].quoted && ["for", "select", "case", "function", "fi", "done", "esac"].includes(argv[0].text)) return { downloads: false };

    let fromInput = false;
    let guard = 0;
    for (;;) {
      if (argv.length === 0) return { downloads: false };
      if (++guard > MAX_UNWRAP) {
        this.add("high", "the command is wrapped too many times to be checked");
        return { downloads: false };
      }
      const head = argv[0];
      if (isDynamic(head)) {
        this.add("high", `the program name (${displayWord(head.text)}) is only known when it runs, so it cannot be checked`);
        return { downloads: downloadSub };
      }
      const name = programName(head.text);
      const rest = argv.slice(1);

      if (ESCALATORS.has(name)) {
        this.add("high", `it runs with elevated privileges (${name})`);
        if (name === "su") {
          const c = optionValue(rest, ["-c", "--command"]);
          if (c) return this.script(c.text, { cwd: state.cwd });
          return { downloads: false, stdinRunner: name };
        }
        if (name === "sudoedit") return { downloads: false };
        const inner = skipOptions(rest, ["-u", "-g", "-C", "-h", "-p", "-r", "-t", "-U", "-D", "-R", "-T", "--user", "--group"]);
        if (inner.length === 0 && rest.some((w) => /^-[a-zA-Z]*[is]/.test(w.text))) return { downloads: false, stdinRunner: name };
        argv = inner;
        continue;
      }
      if (name === "env") {
        const split = optionValue(rest, ["-S", "--split-string"]);
        if (split) return this.script(split.text, { cwd: state.cwd });
        argv = skipOptions(rest, ["-u", "--unset", "-C", "--chdir"]).filter((_, i, all) => i >= leadingAssignments(all));
        continue;
      }
      if (name === "command" || name === "builtin") {
        if (rest.some((w) => w.text === "-v" || w.text === "-V")) return { downloads: false };
        argv = skipOptions(rest, []);
        continue;
      }
      if (["exec", "nohup", "setsid", "unbuffer", "caffeinate", "time", "nocorrect", "noglob", "stdbuf", "ionice", "nice", "chrt", "taskset", "flock"].includes(name)) {
        argv = skipOptions(rest, ["-n", "-c", "-p", "-a", "-i", "-o", "-e", "-w", "-E"]);
        // chrt PRIORITY cmd, taskset MASK cmd, flock FILE cmd
        if (name === "flock" || ((name === "chrt" || name === "taskset") && /^[0-9a-fx,-]+$/i.test(argv[0]?.text ?? ""))) argv = argv.slice(1);
        continue;
      }
      if (name === "timeout") {
        argv = skipOptions(rest, ["-s", "--signal", "-k", "--kill-after"]).slice(1);
        continue;
      }
      if (name === "xargs") {
        fromInput = true;
        argv = skipOptions(rest, ["-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--max-args", "--max-procs", "--delimiter", "--arg-file"]);
        continue;
      }
      if (name === "busybox") {
        argv = rest;
        continue;
      }
      if (name === "eval") {
        if (downloadSub) {
          this.add("forbidden", "it runs a downloaded script with eval");
          return { downloads: false };
        }
        return this.script(rest.map((w) => w.text).join(" "), state);
      }
      if (SHELLS.has(name)) return this.shell(name, rest, cmd, state, downloadSub || heredocDownload);
      if (INTERPRETERS.has(name)) {
        const runsStdin = rest.filter((w) => !w.text.startsWith("-")).length === 0 && !rest.some((w) => /^-(c|e|m|r|p|E)$/.test(w.text) || w.text === "--eval");
        if (runsStdin && cmd.redirects.length === 0) return { downloads: false, stdinRunner: name };
        return { downloads: false };
      }
      if (name === "source" || name === ".") {
        if (downloadSub) this.add("forbidden", `it runs a downloaded script with ${name}`);
        this.args(name, rest, state);
        return { downloads: false };
      }
      return this.program(name, rest, state, fromInput, downloadSub);
    }
  }

  private subsDownload(word: Word): boolean {
    // Already assessed by redirect(); this only answers the question.
    const probe = new Assessor(this.projectRoot, this.home);
    return word.subs.some((s) => probe.list(s, { cwd: undefined }).downloads);
  }

  private shell(name: string, args: Word[], cmd: SimpleCommand, state: State, downloadSub: boolean): StageInfo {
    let i = 0;
    let hasC = false;
    let hasS = false;
    for (; i < args.length; i++) {
      const t = args[i].text;
      if (t === "--") {
        i++;
        break;
      }
      if (!t.startsWith("-") && !t.startsWith("+")) break;
      if (t === "-o" || t === "+o" || t === "-O" || t === "+O" || t === "--rcfile" || t === "--init-file") {
        i++;
        continue;
      }
      if (/^-[A-Za-z]*c[A-Za-z]*$/.test(t) || t === "--command") hasC = true;
      if (/^-[A-Za-z]*s[A-Za-z]*$/.test(t)) hasS = true;
    }
    if (hasC) {
      const body = args[i];
      if (!body) return { downloads: false };
      if (downloadSub) {
        this.add("forbidden", `it runs a downloaded script with ${name} -c`);
        return { downloads: false };
      }
      return this.script(body.text, { cwd: state.cwd });
    }
    // `-s`: the script comes from stdin and the remaining words are its arguments.
    const scriptArg = hasS ? undefined : args[i];
    if (scriptArg && !isDynamic(scriptArg) && scriptArg.text !== "-" && scriptArg.subs.length === 0) {
      this.credentialWord(scriptArg);
      return { downloads: false, runsFile: true };
    }
    if (downloadSub) {
      this.add("forbidden", `it runs a downloaded script with ${name}`);
      return { downloads: false };
    }
    if (scriptArg && isDynamic(scriptArg)) {
      this.add("high", `${name} runs a script whose name is only known when it runs`);
      return { downloads: false };
    }
    const heredoc = cmd.redirects.find((r) => r.target.heredoc !== undefined || r.op === "<<<");
    if (heredoc) {
      if (heredoc.target.heredoc !== undefined) return this.script(heredoc.target.heredoc, { cwd: state.cwd });
      return this.script(heredoc.target.text, { cwd: state.cwd });
    }
    if (cmd.redirects.some((r) => r.op === "<")) return { downloads: false };
    return { downloads: false, stdinRunner: name };
  }

  private program(name: string, args: Word[], state: State, fromInput: boolean, downloadSub: boolean): StageInfo {
    const texts = args.map((a) => a.text);
    const info: StageInfo = { downloads: DOWNLOADERS.has(name) };
    if (downloadSub && name === "exec") this.add("forbidden", "it runs a downloaded script");

    if (name === "cd" || name === "pushd") {
      const target = args.find((a) => !a.text.startsWith("-") || a.text === "-");
      if (!target) state.cwd = this.home;
      else if (target.text === "-") state.cwd = undefined;
      else state.cwd = this.resolve(target, state)?.path;
      return info;
    }
    if (DELETERS.has(name)) this.deleteCommand(name, args, state, fromInput);
    else if (name === "find") this.findCommand(args, state);
    else if (name === "chmod" || name === "chown" || name === "chgrp") this.permissionCommand(name, args, state);
    else if (name === "git") this.gitCommand(args, state);
    else if (name === "dd") {
      for (const t of texts) {
        const m = /^of=(.+)$/.exec(t);
        if (m && BLOCK_DEVICES.test(m[1])) this.add("forbidden", `dd writes directly to the disk device ${m[1]}`);
        else if (m && m[1].startsWith("/dev/") && !BENIGN_DEVICES.test(m[1])) this.add("high", `dd writes to the device ${m[1]}`);
      }
    } else if (DISK_FORMATTERS.test(name)) this.add("forbidden", `it formats a disk or partition (${name})`);
    else if (name === "diskutil" && /^(erase|zeroDisk|randomDisk|secureErase|partitionDisk)/i.test(texts[0] ?? "")) {
      this.add("forbidden", `it erases a disk (diskutil ${texts[0]})`);
    } else if (DISK_TOOLS.has(name)) this.add("high", `it changes disks or partitions (${name})`);
    else if (POWER.has(name) || (name === "systemctl" && /^(poweroff|reboot|halt|kexec)$/.test(texts[0] ?? "")) || (name === "init" && /^[06]$/.test(texts[0] ?? ""))) {
      this.add("high", `it shuts down or restarts the machine (${name})`);
    } else this.credentialCommand(name, texts);

    if (!TEXT_ONLY.has(name)) this.args(name, args, state);
    return info;
  }

  resolve(word: Word, state: State): { path: string; glob: boolean } | undefined {
    let text = word.text;
    if (text.startsWith(HOME_MARK)) text = this.home + text.slice(HOME_MARK.length);
    text = text.split("\uE000PWD\uE001").join(state.cwd ?? "\uE000PWD\uE001");
    if (/[\uE000-\uE002]/.test(text)) return undefined;
    if (!text.startsWith("/") && state.cwd === undefined) return undefined;
    const base = state.cwd ?? "/";
    if (word.glob) {
      const g = text.search(/[*?[]/);
      if (g >= 0) {
        const slash = text.lastIndexOf("/", g);
        const parent = slash < 0 ? "." : text.slice(0, slash + 1) || "/";
        return { path: posix.resolve(base, parent), glob: true };
      }
    }
    return { path: posix.resolve(base, text), glob: false };
  }

  classify(word: Word, state: State): { kind: PathKind; path: string; glob: boolean } {
    const r = this.resolve(word, state);
    if (!r) return { kind: "unknown", path: "", glob: false };
    const { path, glob } = r;
    if (path === "/") return { kind: "root", path, glob };
    if (path === this.home) return { kind: "home", path, glob };
    if (path === this.projectRoot) return { kind: glob ? "inside" : "project-root", path, glob };
    if (isInside(this.projectRoot, path, { posix: true })) return { kind: "inside", path, glob };
    return { kind: "outside", path, glob };
  }
}

export function assessCommand(command: string, ctx: AssessContext): CommandAssessment {
  const projectRoot = posix.resolve(ctx.projectRoot);
  const home = posix.resolve(ctx.home ?? homedir());
  const a = new Assessor(projectRoot, home);
  a.script(command, { cwd: ctx.cwd ? posix.resolve(projectRoot, ctx.cwd) : projectRoot });

  for (const text of a.scripts) {
    const squeezed = text.replace(/\s+/g, "");
    if (FORK_BOMB.test(squeezed) || FORK_BOMB_FN.test(squeezed)) a.add("forbidden", "it is a fork bomb that would exhaust the machine");
  }
  const texts = [command, ...a.scripts];
  for (const [sources, level] of [
    [ctx.extraForbidden ?? [], "forbidden"],
    [ctx.extraHighRisk ?? [], "high"],
  ] as const) {
    for (const src of sources) {
      const re = compile(src);
      if (!re) a.add("high", `the configured pattern /${src}/ is not a valid regular expression, so the command is treated as high risk`);
      else if (texts.some((t) => re.test(t))) {
        a.add(level, `it matches the configured ${level === "forbidden" ? "forbidden" : "high-risk"} pattern /${src}/`);
      }
    }
  }

  let level: RiskLevel = "normal";
  for (const f of a.findings) if (RANK[f.level] > RANK[level]) level = f.level;
  // Strongest reasons first, each once.
  const reasons = [...new Set([...a.findings].sort((x, y) => RANK[y.level] - RANK[x.level]).map((f) => f.reason))];
  return { level, reasons };
}

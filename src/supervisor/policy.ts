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
// - Anything the parser cannot make sense of is high risk: approvable once, never for a session.
import { homedir } from "node:os";
import { posix, win32 as pathWin } from "node:path";
import { redactText } from "./redact.ts";
import {
  displayWord,
  HOME_MARK,
  isDynamic,
  parseShell,
  type ShellCommand,
  type ShellList,
  type SimpleCommand,
  type Word,
} from "./shell-parse.ts";

export type RiskLevel = "normal" | "high" | "forbidden";

export interface CommandAssessment {
  level: RiskLevel;
  reasons: string[];
}

export interface AssessContext {
  projectRoot: string;
  /** Regex sources from the profile: matching commands are high risk. */
  extraHighRisk?: string[];
  /** Regex sources from the profile: matching commands can only be declined. */
  extraForbidden?: string[];
  /** Defaults to the OS home directory. */
  home?: string;
  /** Directory the command runs in; defaults to projectRoot. */
  cwd?: string;
}

const RANK: Record<RiskLevel, number> = { normal: 0, high: 1, forbidden: 2 };

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "tcsh", "csh", "busybox-sh"]);
const INTERPRETERS = new Set(["python", "python2", "python3", "perl", "ruby", "node", "php", "deno", "bun"]);
const DOWNLOADERS = new Set(["curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request", "GET"]);
const ESCALATORS = new Set(["sudo", "su", "doas", "pkexec", "run0", "sudoedit"]);
const TEXT_ONLY = new Set(["echo", "printf", ":", "true", "false"]);
const DELETERS = new Set(["rm", "unlink", "shred", "srm"]);
const DISK_FORMATTERS = /^(mkfs(\..+)?|mke2fs|mkfs_.+|newfs(_.+)?|mkdosfs|mkntfs|mkswap)$/;
const DISK_TOOLS = new Set(["wipefs", "fdisk", "sfdisk", "cfdisk", "parted", "gdisk", "sgdisk", "blkdiscard", "cryptsetup", "zpool", "lvremove", "vgremove", "pvremove"]);
const POWER = new Set(["shutdown", "reboot", "halt", "poweroff"]);
const BENIGN_DEVICES = /^\/dev\/(null|zero|u?random|stdout|stderr|stdin|tty|full|fd\/\d+|pts\/\d+)$/;
const BLOCK_DEVICES = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|mapper\/|md|loop|dm-|sr|fd\d)/;
const SYSTEM_DIRS = /^\/(etc|usr|bin|sbin|lib|lib32|lib64|boot|var|opt|System|Library|Applications|private)(\/|$)/;

const CREDENTIAL_PATHS: { re: RegExp; what: string }[] = [
  { re: /(^|\/)\.ssh(\/|$)/, what: "~/.ssh" },
  { re: /(^|\/)\.aws(\/|$)/, what: "~/.aws" },
  { re: /(^|\/)\.gnupg(\/|$)/, what: "~/.gnupg" },
  { re: /(^|\/)\.password-store(\/|$)/, what: "the pass store" },
  { re: /(^|\/)\.docker\/config\.json$/, what: "Docker credentials" },
  { re: /(^|\/)\.kube\/config$/, what: "kubeconfig" },
  { re: /(^|\/)\.config\/gh\/hosts\.ya?ml$/, what: "GitHub CLI credentials" },
  { re: /(^|\/)\.config\/gcloud(\/|$)/, what: "gcloud credentials" },
  { re: /(^|\/)\.azure(\/|$)/, what: "Azure credentials" },
  { re: /(^|\/)(\.git-credentials|\.netrc|_netrc|\.pgpass|\.npmrc|\.pypirc)$/, what: "a credentials file" },
  { re: /(^|\/)\.env(\.(?!example$|sample$|template$|dist$|defaults$)[^\/]+)?$/, what: "a .env file" },
  { re: /(^|\/)id_(rsa|dsa|ecdsa|ed25519)(_sk)?$/, what: "an SSH private key" },
  { re: /(^|\/)Library\/Keychains(\/|$)/, what: "the macOS keychain" },
  { re: /^\/etc\/(shadow|gshadow|sudoers)/, what: "system password files" },
];

interface Finding {
  level: RiskLevel;
  reason: string;
}

interface State {
  /** undefined once a `cd` went somewhere that cannot be known ahead of time. */
  cwd: string | undefined;
}

interface StageInfo {
  downloads: boolean;
  /** Name of a shell/interpreter that would execute whatever arrives on stdin. */
  stdinRunner?: string;
  /** Text this stage writes to stdout that is known in advance (echo args, here-documents). */
  feeds?: string[];
  /** A shell runs a script file named on its command line. */
  runsFile?: boolean;
}

const MAX_UNWRAP = 12;

class Assessor {
  findings: Finding[] = [];
  scripts: string[] = [];
  private depth = 0;

  constructor(
    readonly projectRoot: string,
    readonly home: string,
  ) {}

  add(level: RiskLevel, reason: string): void {
    this.findings.push({ level, reason });
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

  private args(_name: string, args: Word[], _state: State): void {
    for (const a of args) this.credentialWord(a);
  }

  private credentialWord(word: Word): void {
    const text = word.text.split(HOME_MARK).join("~");
    for (const part of text.split("=")) {
      const hit = CREDENTIAL_PATHS.find((c) => c.re.test(part.replace(/\/+$/, "")));
      if (hit) {
        this.add("high", `it touches a credential store (${hit.what}: ${displayWord(word.text)})`);
        return;
      }
    }
  }

  private credentialCommand(name: string, args: string[]): void {
    const a0 = args[0] ?? "";
    const a1 = args[1] ?? "";
    const hit =
      (name === "security" && /^(find-generic-password|find-internet-password|find-key|dump-keychain|export|unlock-keychain)$/.test(a0)) ||
      (name === "gh" && a0 === "auth" && (a1 === "token" || args.includes("--show-token"))) ||
      name === "keychain" ||
      (name === "pass" && a0 !== "" && !["ls", "list", "find", "search", "help", "version", "--help", "--version"].includes(a0)) ||
      (name === "gopass" && ["show", "cat", "otp"].includes(a0)) ||
      (name === "secret-tool" && a0 === "lookup") ||
      (name === "op" && ["read", "item", "inject", "signin", "document"].includes(a0)) ||
      (name === "lpass" && a0 === "show") ||
      (name === "bw" && ["get", "export", "unlock"].includes(a0)) ||
      (name === "aws" && a0 === "configure" && ["get", "export-credentials", "list"].includes(a1)) ||
      (name === "aws" && a0 === "sts" && a1 === "get-session-token") ||
      (name === "gcloud" && args.some((x) => /^print-(access|identity)-token$/.test(x))) ||
      (name === "az" && a0 === "account" && a1 === "get-access-token") ||
      (name === "kubectl" && a0 === "config" && a1 === "view" && args.includes("--raw")) ||
      (name === "git" && a0 === "credential");
    if (hit) this.add("high", `it reads stored credentials (${[name, a0, a1].filter(Boolean).join(" ")})`);
  }

  private deleteCommand(name: string, args: Word[], state: State, fromInput: boolean): void {
    let recursive = false;
    let noPreserveRoot = false;
    let endOfOptions = false;
    const targets: Word[] = [];
    for (const a of args) {
      const t = a.text;
      if (!endOfOptions && t === "--") endOfOptions = true;
      else if (!endOfOptions && t.startsWith("--")) {
        if (t === "--recursive") recursive = true;
        if (t === "--no-preserve-root") noPreserveRoot = true;
      } else if (!endOfOptions && /^-[A-Za-z]+$/.test(t)) {
        if (/[rR]/.test(t) && name === "rm") recursive = true;
      } else targets.push(a);
    }
    if (targets.length === 0 && fromInput && recursive) {
      this.add("high", `${name} -r deletes paths read from its input, which cannot be checked in advance`);
    }
    const verb = `${name}${recursive ? " -r" : ""}`;
    for (const target of targets) {
      const where = this.classify(target, state);
      const shown = displayWord(target.text);
      switch (where.kind) {
        case "root":
          this.add(recursive || where.glob || noPreserveRoot ? "forbidden" : "high", `${verb} deletes the filesystem root (${shown})`);
          break;
        case "home":
          this.add(recursive || where.glob ? "forbidden" : "high", `${verb} deletes the home directory (${shown})`);
          break;
        case "project-root":
          this.add("high", `${verb} deletes the whole project directory (${shown})`);
          break;
        case "outside":
          this.add("high", `${verb} deletes outside the project (${where.path})`);
          break;
        case "unknown":
          this.add("high", `${verb} deletes a path that is only known when it runs (${shown})`);
          break;
        case "inside":
          break;
      }
    }
  }

  private findCommand(args: Word[], state: State): void {
    const texts = args.map((a) => a.text);
    const exec = texts.findIndex((t) => t === "-exec" || t === "-execdir" || t === "-ok" || t === "-okdir");
    const deletes = texts.includes("-delete") || (exec >= 0 && DELETERS.has(programName(texts[exec + 1] ?? "")));
    if (!deletes) return;
    let i = 0;
    while (i < args.length && /^-[HLP]$|^-O\d$/.test(texts[i])) i++;
    if (texts[i] === "-D") i += 2;
    const roots: Word[] = [];
    for (; i < args.length; i++) {
      if (/^[-(!)]/.test(texts[i])) break;
      roots.push(args[i]);
    }
    if (roots.length === 0) roots.push({ text: ".", quoted: false, glob: false, subs: [] });
    for (const root of roots) {
      const where = this.classify(root, state);
      const shown = displayWord(root.text);
      if (where.kind === "root" || where.kind === "home") this.add("high", `find deletes files under ${where.kind === "root" ? "the filesystem root" : "the home directory"} (${shown})`);
      else if (where.kind === "outside") this.add("high", `find deletes files outside the project (${where.path})`);
      else if (where.kind === "unknown") this.add("high", `find deletes files under a path that is only known when it runs (${shown})`);
    }
  }

  private permissionCommand(name: string, args: Word[], state: State): void {
    let recursive = false;
    let spec: string | undefined;
    const targets: Word[] = [];
    for (const a of args) {
      const t = a.text;
      if (t === "-R" || t === "--recursive") recursive = true;
      else if (/^-[fvchHLP]+$/.test(t) || t.startsWith("--")) continue;
      else if (/^-[A-Za-z]*R[A-Za-z]*$/.test(t) && name !== "chmod") recursive = true;
      else if (spec === undefined) spec = t;
      else targets.push(a);
    }
    if (name === "chmod" && spec !== undefined) {
      if (/[+=][rwxXt]*s/.test(spec) || (/^[0-7]{4,}$/.test(spec) && /[2-7]/.test(spec.slice(-4, -3)))) {
        this.add("high", `chmod sets the setuid or setgid bit (${spec})`);
      }
    }
    if ((name === "chown" || name === "chgrp") && spec !== undefined) {
      if ((name === "chown" && /^(root|0)([:.]|$)/.test(spec)) || /^[:.]?(root|wheel|0)$/.test(spec) && name === "chgrp" || /[:.](root|wheel|0)$/.test(spec)) {
        this.add("high", `${name} hands files to root (${spec})`);
      }
    }
    for (const target of targets) {
      const where = this.classify(target, state);
      const shown = displayWord(target.text);
      if (where.kind === "root" || where.kind === "home") {
        this.add("high", `${name} changes ${where.kind === "root" ? "the filesystem root" : "the home directory"}${recursive ? " recursively" : ""} (${shown})`);
      } else if (where.kind === "outside" && (recursive || SYSTEM_DIRS.test(where.path))) {
        this.add("high", `${name} changes ${recursive ? "recursively " : ""}outside the project (${where.path})`);
      } else if (where.kind === "unknown" && recursive) {
        this.add("high", `${name} -R changes a path that is only known when it runs (${shown})`);
      }
    }
  }

  private gitCommand(args: Word[], state: State): void {
    let i = 0;
    const texts = args.map((a) => a.text);
    while (i < texts.length && texts[i].startsWith("-")) {
      if (["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"].includes(texts[i])) i += 2;
      else i++;
    }
    const sub = texts[i];
    const rest = texts.slice(i + 1);
    if (sub === "push") {
      const force = rest.find(
        (t) =>
          t === "--force" ||
          t.startsWith("--force-with-lease") ||
          t === "--force-if-includes" ||
          t === "--mirror" ||
          t === "--delete" ||
          /^-[A-Za-z]*[fd][A-Za-z]*$/.test(t) ||
          (/^\+[^\s]/.test(t) && !t.startsWith("--")) ||
          /^:[^\s]/.test(t),
      );
      if (force) this.add("high", `git push ${force} can overwrite or delete remote history`);
    } else if (sub === "reset" && rest.includes("--hard")) {
      this.add("high", "git reset --hard discards uncommitted changes");
    } else if (sub === "clean" && rest.some((t) => t === "--force" || /^-[A-Za-z]*f/.test(t)) && !rest.some((t) => t === "-n" || t === "--dry-run" || /^-[A-Za-z]*n/.test(t))) {
      this.add("high", `git clean ${rest.filter((t) => t.startsWith("-")).join(" ")} deletes untracked files`);
    } else if (sub === "credential") {
      this.add("high", "git credential reads stored credentials");
    }
    void state;
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

  classify(word: Word, state: State): { kind: "root" | "home" | "project-root" | "inside" | "outside" | "unknown"; path: string; glob: boolean } {
    const r = this.resolve(word, state);
    if (!r) return { kind: "unknown", path: "", glob: false };
    const { path, glob } = r;
    if (path === "/") return { kind: "root", path, glob };
    if (path === this.home) return { kind: "home", path, glob };
    if (path === this.projectRoot) return { kind: glob ? "inside" : "project-root", path, glob };
    if (isInside(this.projectRoot, path)) return { kind: "inside", path, glob };
    return { kind: "outside", path, glob };
  }
}

function isInside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith("/") ? root : `${root}/`);
}

function programName(text: string): string {
  const base = text.slice(text.lastIndexOf("/") + 1);
  return base.replace(/\.exe$/i, "");
}

/** Drops leading options; `withValue` options also drop the next word. Stops at `--` or the first operand. */
function skipOptions(args: Word[], withValue: string[]): Word[] {
  let i = 0;
  while (i < args.length) {
    const t = args[i].text;
    if (t === "--") return args.slice(i + 1);
    if (!t.startsWith("-") || t === "-") break;
    i += withValue.includes(t) ? 2 : 1;
  }
  return args.slice(i);
}

function leadingAssignments(args: Word[]): number {
  let i = 0;
  while (i < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[i].text)) i++;
  return i;
}

function optionValue(args: Word[], names: string[]): Word | undefined {
  for (let i = 0; i < args.length; i++) {
    const t = args[i].text;
    if (names.includes(t)) return args[i + 1];
    for (const n of names) {
      if (n.startsWith("--") && t.startsWith(`${n}=`)) return { ...args[i], text: t.slice(n.length + 1) };
    }
  }
  return undefined;
}

// `:(){ :|:& };:` and named variants: a function that pipes into itself in the background.
const FORK_BOMB = /([A-Za-z_:.][\w:.-]{0,30})\(\)\{[^}]{0,60}?\1\|\1?&/;
const FORK_BOMB_FN = /function([A-Za-z_:.][\w:.-]{0,30})(?:\(\))?\{[^}]{0,60}?\1\|\1?&/;

function compile(source: string): RegExp | undefined {
  try {
    return new RegExp(source);
  } catch {
    return undefined;
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

// ---- decisions ---------------------------------------------------------------------------------

export type RequestKind = "command" | "fileChange" | "permissions" | "userInput" | "elicitation" | "unknown";

/**
 * What the supervisor answered. Codex's approval decisions plus the MCP elicitation actions;
 * `answer` is a user-input reply.
 */
export type DecisionAction =
  | "accept"
  | "acceptForSession"
  | "acceptWithExecpolicyAmendment"
  | "answer"
  | "decline"
  | "cancel";

export interface DecisionInput {
  kind: RequestKind;
  action: DecisionAction | (string & {});
  /** Required for command requests; without it the command counts as high risk. */
  assessment?: CommandAssessment;
  /** Paths a permission or file-change request would grant or touch. */
  grantPaths?: string[];
  projectRoot: string;
  credentialLike?: boolean;
  /** Scope of a permission grant; "session" outlives this turn. */
  scope?: "turn" | "session";
}

export type DecisionCheck = { ok: true } | { ok: false; reason: string };

const REFUSING = new Set(["decline", "cancel"]);
const LASTING = new Set(["acceptForSession", "acceptWithExecpolicyAmendment"]);

export function checkDecision(input: DecisionInput): DecisionCheck {
  const action = input.action;
  if (REFUSING.has(action)) return { ok: true };
  const lasting = LASTING.has(action) || input.scope === "session";

  if (input.kind === "unknown") {
    return refuse("The bridge does not know this kind of request, so it can only be declined or cancelled; decline it and tell Codex in a message what to do instead.");
  }
  if (!["accept", "acceptForSession", "acceptWithExecpolicyAmendment", "answer"].includes(action)) {
    return refuse(`"${action}" is not an answer the bridge knows for this request; use accept, decline or cancel.`);
  }

  switch (input.kind) {
    case "command": {
      const a = input.assessment ?? { level: "high" as const, reasons: ["the command was not assessed"] };
      const why = a.reasons.length > 0 ? ` (${a.reasons.join("; ")})` : "";
      if (action === "answer") return refuse('A command approval takes accept or decline, not "answer"; use one of those.');
      if (a.level === "forbidden") {
        return refuse(`This command is forbidden by the bridge's safety policy${why}, so it can only be declined; decline it, or ask the user to run it themselves.`);
      }
      if (a.level === "high" && lasting) {
        return refuse(`This command is high risk${why}, so it can be approved only for this one run, never for the session; answer accept to allow just this run, or decline.`);
      }
      return { ok: true };
    }
    case "fileChange":
    case "permissions": {
      if (input.credentialLike) {
        return refuse("This request looks like it involves credentials, so it can only be declined; decline it, or ask the user to handle the credentials themselves.");
      }
      const outside = outsidePaths(input.grantPaths ?? [], input.projectRoot);
      if (outside.length > 0) {
        return refuse(`This request reaches outside the project (${outside.slice(0, 3).join(", ")}), so it can only be declined; decline it, or ask the user to grant that access themselves.`);
      }
      return { ok: true };
    }
    case "userInput":
    case "elicitation": {
      if (input.credentialLike) {
        return refuse("This question asks for a secret such as a password or token, which the supervisor must never supply; cancel it, or ask the user to enter it themselves.");
      }
      if (lasting) return refuse('A question is answered once; use "accept" (or "answer") without a session scope.');
      return { ok: true };
    }
  }
}

function refuse(reason: string): DecisionCheck {
  return { ok: false, reason };
}

function outsidePaths(paths: string[], projectRoot: string): string[] {
  const windows = /^[A-Za-z]:[\\/]|^\\\\/.test(projectRoot);
  const p = windows ? pathWin : posix;
  const root = p.resolve(projectRoot);
  const fold = (s: string) => (windows ? s.toLowerCase() : s);
  return paths.filter((raw) => {
    const full = p.resolve(root, raw);
    const rel = p.relative(fold(root), fold(full));
    return rel.startsWith("..") || p.isAbsolute(rel);
  });
}


const CREDENTIAL_WORDS =
  /\b(pass(word|phrase|wd|code)s?|secrets?|api[\s_-]?keys?|access[\s_-]?keys?|private[\s_-]?keys?|ssh[\s_-]?keys?|credentials?|(access|auth|bearer|refresh|api|session|id|personal[\s_-]access|github|npm|oauth)[\s_-]?tokens?|token|otp|one[\s-]time[\s-](code|password)|2fa|mfa|totp|verification[\s_-]code|pin[\s_-]?code|keychain|cookies?|client[\s_-]secret)\b/i;

/** True when a request's text asks for or mentions secrets (tokens, passwords, keys) or contains one. */
export function looksCredentialLike(text: string): boolean {
  if (CREDENTIAL_WORDS.test(text)) return true;
  return redactText(text) !== text;
}

// The per-program rules of the approval policy: credential stores and tools, deletes, find -delete, permission
// changes and Git. A base of the assessor: the walk over the parsed command lives in risk.ts.
import { displayWord, HOME_MARK, isDynamic, type Word } from "./shell-ast.ts";
import { CREDENTIAL_PATHS, DELETERS, optionValue, programName, skipOptions, SYSTEM_DIRS, type Finding, type RiskLevel, type State } from "./risk-tables.ts";

export type PathKind = "root" | "home" | "project-root" | "inside" | "outside" | "unknown";

export abstract class ProgramRules {
  findings: Finding[] = [];

  add(level: RiskLevel, reason: string): void {
    this.findings.push({ level, reason });
  }

  abstract resolve(word: Word, state: State): { path: string; glob: boolean } | undefined;
  abstract classify(word: Word, state: State): { kind: PathKind; path: string; glob: boolean };

  protected args(_name: string, args: Word[], _state: State): void {
    for (const a of args) this.credentialWord(a);
  }

  protected credentialWord(word: Word): void {
    const text = word.text.split(HOME_MARK).join("~");
    for (const part of text.split("=")) {
      const hit = CREDENTIAL_PATHS.find((c) => c.re.test(part.replace(/\/+$/, "")));
      if (hit) {
        this.add("high", `it touches a credential store (${hit.what}: ${displayWord(word.text)})`);
        return;
      }
    }
  }

  protected credentialCommand(name: string, args: string[]): void {
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

  protected deleteCommand(name: string, args: Word[], state: State, fromInput: boolean): void {
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

  protected findCommand(args: Word[], state: State): void {
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

  protected permissionCommand(name: string, args: Word[], state: State): void {
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

  protected gitCommand(args: Word[], state: State): void {
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

}

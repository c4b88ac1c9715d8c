// The approval policy's tables and shared types: program families, dangerous paths and devices, credential stores,
// and the small word helpers the rules share. Data and pure functions only.
import type { Word } from "./shell-ast.ts";

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

export const RANK: Record<RiskLevel, number> = { normal: 0, high: 1, forbidden: 2 };

export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "tcsh", "csh", "busybox-sh"]);
export const INTERPRETERS = new Set(["python", "python2", "python3", "perl", "ruby", "node", "php", "deno", "bun"]);
export const DOWNLOADERS = new Set(["curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request", "GET"]);
export const ESCALATORS = new Set(["sudo", "su", "doas", "pkexec", "run0", "sudoedit"]);
export const TEXT_ONLY = new Set(["echo", "printf", ":", "true", "false"]);
export const DELETERS = new Set(["rm", "unlink", "shred", "srm"]);
export const DISK_FORMATTERS = /^(mkfs(\..+)?|mke2fs|mkfs_.+|newfs(_.+)?|mkdosfs|mkntfs|mkswap)$/;
export const DISK_TOOLS = new Set(["wipefs", "fdisk", "sfdisk", "cfdisk", "parted", "gdisk", "sgdisk", "blkdiscard", "cryptsetup", "zpool", "lvremove", "vgremove", "pvremove"]);
export const POWER = new Set(["shutdown", "reboot", "halt", "poweroff"]);
export const BENIGN_DEVICES = /^\/dev\/(null|zero|u?random|stdout|stderr|stdin|tty|full|fd\/\d+|pts\/\d+)$/;
export const BLOCK_DEVICES = /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|mapper\/|md|loop|dm-|sr|fd\d)/;
export const SYSTEM_DIRS = /^\/(etc|usr|bin|sbin|lib|lib32|lib64|boot|var|opt|System|Library|Applications|private)(\/|$)/;

export const CREDENTIAL_PATHS: { re: RegExp; what: string }[] = [
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

export interface Finding {
  level: RiskLevel;
  reason: string;
}

export interface State {
  /** undefined once a `cd` went somewhere that cannot be known ahead of time. */
  cwd: string | undefined;
}

export interface StageInfo {
  downloads: boolean;
  /** Name of a shell/interpreter that would execute whatever arrives on stdin. */
  stdinRunner?: string;
  /** Text this stage writes to stdout that is known in advance (echo args, here-documents). */
  feeds?: string[];
  /** A shell runs a script file named on its command line. */
  runsFile?: boolean;
}



export function programName(text: string): string {
  const base = text.slice(text.lastIndexOf("/") + 1);
  return base.replace(/\.exe$/i, "");
}

/** Drops leading options; `withValue` options also drop the next word. Stops at `--` or the first operand. */
export function skipOptions(args: Word[], withValue: string[]): Word[] {
  let i = 0;
  while (i < args.length) {
    const t = args[i].text;
    if (t === "--") return args.slice(i + 1);
    if (!t.startsWith("-") || t === "-") break;
    i += withValue.includes(t) ? 2 : 1;
  }
  return args.slice(i);
}

export function leadingAssignments(args: Word[]): number {
  let i = 0;
  while (i < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[i].text)) i++;
  return i;
}

export function optionValue(args: Word[], names: string[]): Word | undefined {
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
export const FORK_BOMB = /([A-Za-z_:.][\w:.-]{0,30})\(\)\{[^}]{0,60}?\1\|\1?&/;
export const FORK_BOMB_FN = /function([A-Za-z_:.][\w:.-]{0,30})(?:\(\))?\{[^}]{0,60}?\1\|\1?&/;

export function compile(source: string): RegExp | undefined {
  try {
    return new RegExp(source);
  } catch {
    return undefined;
  }
}

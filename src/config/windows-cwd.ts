// The lexical check of a project cwd written in Windows form: only a plain drive-letter path is accepted, because
// UNC shares, \\?\ and \\.\ prefixes, device names, alternate data streams and trailing dots/spaces all name
// something other than what they seem to once Windows has normalized them.

// CON, PRN, AUX, NUL, COM0-9, LPT0-9 (with the superscript digits Windows also reserves), CONIN$, CONOUT$, CLOCK$.
const RESERVED_NAME = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$|clock\$)$/i;
// Characters a Windows file name cannot hold (":" is handled apart, as a stream separator).
const INVALID_CHARS = /[<>"|?*\u0000-\u001f]/;

/** Why `cwd` is not an acceptable Windows project directory, or null when it is a plain `X:\...` path. */
export function windowsCwdProblem(cwd: string): string | null {
  if (/^[\\/]{2}[?.][\\/]/.test(cwd)) return `uses a \\\\?\\ or \\\\.\\ device prefix; write the plain drive path (C:\\...)`;
  if (/^[\\/]{2}/.test(cwd)) return "is a UNC or network path; use a directory on a local drive (C:\\...)";
  if (!/^[A-Za-z]:[\\/]/.test(cwd)) return "is not an absolute drive path; write it as C:\\... (a drive letter, a colon and a backslash)";
  const segments = cwd.slice(3).split(/[\\/]/);
  for (const seg of segments) {
    if (seg === "") continue;
    if (/^\.+$/.test(seg)) return `contains a "${seg}" component; write the directory without . or .. parts`;
    if (seg.includes(":")) return `names an alternate data stream ("${seg}"); ":" is not allowed after the drive`;
    if (/[. ]$/.test(seg)) return `has a component ending in a dot or a space ("${seg}"), which Windows silently strips`;
    if (INVALID_CHARS.test(seg)) return `has a character Windows does not allow in a name ("${seg}")`;
    const stem = seg.split(".")[0]!.replace(/ +$/, "");
    if (RESERVED_NAME.test(stem)) return `uses the reserved device name "${seg}"`;
  }
  return null;
}

// Line counts of a unified diff, read hunk by hunk so content lines that look like headers ("+++x") count right.

export interface DiffStat {
  files: string[];
  insertions: number;
  deletions: number;
}

const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;
const GIT_HEADER = /^diff --git a\/(.*) b\/(.*)$/;

function headerPath(line: string): string | null {
  const p = line.slice(4).replace(/\t.*$/, "").trim();
  if (p === "/dev/null") return null;
  return p.replace(/^[ab]\//, "");
}

export function diffStat(diff: string): DiffStat {
  const files: string[] = [];
  const seen = new Set<string>();
  const addFile = (p: string | null): void => {
    if (p && !seen.has(p)) {
      seen.add(p);
      files.push(p);
    }
  };
  let insertions = 0;
  let deletions = 0;
  let oldLeft = 0;
  let newLeft = 0;
  let minusPath: string | null = null;
  for (const line of diff.split("\n")) {
    if (oldLeft > 0 || newLeft > 0) {
      if (line.startsWith("+")) {
        insertions++;
        newLeft--;
      } else if (line.startsWith("-")) {
        deletions++;
        oldLeft--;
      } else if (line.startsWith(" ") || line === "") {
        oldLeft--;
        newLeft--;
      }
      // "\ No newline at end of file" belongs to the hunk but counts toward neither side.
      continue;
    }
    const git = GIT_HEADER.exec(line);
    if (git) {
      addFile(git[2] ?? null);
      continue;
    }
    const hunk = HUNK.exec(line);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      continue;
    }
    if (line.startsWith("--- ")) minusPath = headerPath(line);
    else if (line.startsWith("+++ ")) {
      // A deleted file names itself only on the "---" side.
      addFile(headerPath(line) ?? minusPath);
      minusPath = null;
    }
  }
  return { files, insertions, deletions };
}

// What Linux says about a child process: resident memory now and at its peak, and the CPU time all its threads used
// (ns resolution from schedstat, unlike the 10 ms ticks of /proc/PID/stat). Elsewhere every figure is null.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";

function statusField(pid: number, field: string): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Resident set size in MiB. */
export const rssMiB = (pid: number): number | null => statusField(pid, "VmRSS");

/** Peak resident set size in MiB since start or the last resetPeakRss. */
export const peakRssMiB = (pid: number): number | null => statusField(pid, "VmHWM");

/** Starts a new peak-RSS window (Linux 4.0+: writing 5 to clear_refs resets VmHWM); false when not allowed. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** CPU time of every thread of the process so far, in ms; null when schedstat is unavailable. */
export function cpuMs(pid: number): number | null {
  try {
    let ns = 0;
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // the thread ended meanwhile
      }
    }
    return ns / 1e6;
  } catch {
    return null;
  }
}

/** The machine, for the table's heading: CPU model, cores, memory, kernel, load at the start. */
export function machineLine(): string {
  const read = (p: string) => {
    try {
      return readFileSync(p, "utf8");
    } catch {
      return "";
    }
  };
  const cpu = /model name\s*:\s*(.+)/.exec(read("/proc/cpuinfo"))?.[1]?.trim() ?? process.arch;
  const cores = (read("/proc/cpuinfo").match(/^processor\s*:/gm) ?? []).length || "?";
  const memKb = Number(/MemTotal:\s+(\d+)/.exec(read("/proc/meminfo"))?.[1] ?? 0);
  const load = read("/proc/loadavg").split(" ").slice(0, 3).join(" ") || "?";
  const kernel = read("/proc/sys/kernel/osrelease").trim() || process.platform;
  return `${cpu}, ${cores} cores, ${memKb ? `${Math.round(memKb / 1048576)} GiB` : "? GiB"}, Linux ${kernel}, load average ${load}`;
}

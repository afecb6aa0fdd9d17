// CPU time spent by the product's processes, read from /proc (utime + stime of each process), so the
// bench can print what one command costs the gateway, the projector, Postgres and Redis.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU milliseconds (user + system) of one process so far, or 0 when it is gone. */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * Every process whose command name is `name` (all of Postgres's backends, say); with `database`,
 * only the backends whose title names it ("postgres: <user> <database> …"): on a server other
 * work shares, the others' backends come and go between two snapshots (a delta even went negative).
 */
function pidsNamed(name: string, database?: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== name) continue;
      if (database !== undefined) {
        const title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').split(' ');
        if (title[2] !== database) continue;
      }
      pids.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
}

export interface CpuGroups {
  [group: string]: number[] | { named: string; database?: string };
}

/** CPU milliseconds per group now: later minus earlier gives what a run cost. */
export function cpuSnapshot(groups: CpuGroups): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [group, spec] of Object.entries(groups)) {
    const pids = Array.isArray(spec) ? spec : pidsNamed(spec.named, spec.database);
    out[group] = pids.reduce((sum, pid) => sum + cpuMsOf(pid), 0);
  }
  return out;
}

export function cpuDelta(before: Record<string, number>, after: Record<string, number>) {
  return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - (before[k] ?? 0)]));
}

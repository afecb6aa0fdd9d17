// What the host does behind the product's back that shows in the latency tail. On the project's VM
// the kernel's DAMON runs proactive reclaim over all physical memory (operations `paddr`, a
// `pageout` scheme) and samples page accesses every 500 ms: the slow commands came in clusters about
// 540 ms apart, and with DAMON switched off for a run the clusters were gone (docs/PERFORMANCE.md).
// The bench only reports it; changing the kernel's settings is the operator's call.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const KDAMONDS = '/sys/kernel/mm/damon/admin/kdamonds';

const read = (file: string) => {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
};

/** 'off', or how DAMON is sampling ('on: paddr, pageout, every 500 ms'), or null when not there. */
export function damonState(): string | null {
  if (!existsSync(KDAMONDS)) return null;
  const states: string[] = [];
  for (const id of readdirSync(KDAMONDS).filter((d) => /^\d+$/.test(d))) {
    const dir = path.join(KDAMONDS, id);
    if (read(path.join(dir, 'state')) !== 'on') continue;
    const ctx = path.join(dir, 'contexts', '0');
    const ops = read(path.join(ctx, 'operations')) ?? '?';
    const sampleUs = Number(read(path.join(ctx, 'monitoring_attrs', 'intervals', 'sample_us')));
    const action = read(path.join(ctx, 'schemes', '0', 'action'));
    states.push(
      `on: ${ops}${action ? `, ${action}` : ''}${sampleUs ? `, samples every ${Math.round(sampleUs / 1000)} ms` : ''}`,
    );
  }
  return states.length ? states.join('; ') : 'off';
}

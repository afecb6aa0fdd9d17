// The modules' parts: vendors (sync, CSV import, the list) and approvals (lists, detail, a change's
// push, bulk approve), each on a fresh database.

import { localSocketUrl } from '../tools/local-services.js';
import { type ApprovalFigures, benchApprovals } from './approvals.js';
import { fmt, freshDatabase, type PartContext, quick } from './common.js';
import { benchEnv, benchVendors, type VendorFigures } from './vendors.js';

/** Vendors: sync, CSV import, and the list over 50,000 vendors. */
export async function vendorsPart({ admin, services, rows }: PartContext) {
  let vendors: VendorFigures | undefined;
  const db = await freshDatabase(admin, 'vendors');
  try {
    const v = await benchVendors(benchEnv(localSocketUrl(db.url) ?? db.url, services.redisUrl), quick);
    vendors = v;
    rows.push({
      figure: `vendor sync from the QuickBooks simulator, ${fmt(v.syncVendors)} vendors (request → completed)`,
      value: `${fmt(v.syncSeconds, 2)} s (a second run: ${fmt(v.resyncSeconds, 2)} s)`,
      target: '≤ 5 s',
      met: v.syncSeconds <= 5,
    });
    const cpuOf = (cpu: Record<string, number>) =>
      ['gateway', 'projector', 'worker', 'postgres'].map((k) => fmt(cpu[k] ?? 0, 0)).join(' · ');
    rows.push({
      figure: `vendor CSV import, ${fmt(v.importRows)} rows, vendors the gateway has not read yet (upload → answer, ${fmt(v.importUpdated)} updated)`,
      value:
        v.importRuns.length > 1
          ? `${fmt(v.importSeconds, 2)} s (median of ${v.importRuns.length}: ${v.importRuns.map((r) => fmt(r, 2)).join(' · ')} s)`
          : `${fmt(v.importSeconds, 2)} s`,
      target: '≤ 3 s',
      met: v.importSeconds <= 3,
    });
    rows.push({
      figure: '  CPU the median import cost (ms, /proc; gateway · projector · worker · Postgres)',
      value: cpuOf(v.importCpu),
      target: '',
      met: null,
    });
    rows.push({
      figure: "  the first of those files again, new account numbers (the vendors' streams remembered)",
      value: `${fmt(v.reimportSeconds, 2)} s`,
      target: '',
      met: null,
    });
    // Before those, untimed for the figure: V8 compiles the import's code once per process.
    rows.push({
      figure: `  a freshly started gateway's first import (another company's ${fmt(v.firstInProcess.updated)} vendors; CPU gw · proj · worker · PG, ms)`,
      value: `${fmt(v.firstInProcess.seconds, 2)} s (${cpuOf(v.firstInProcess.cpu)})`,
      target: '',
      met: null,
    });
    rows.push({
      figure: `vendors list, 20 rows with filters, over ${fmt(v.listVendors)} vendors (${fmt(v.listRequests)} requests, p50 ${fmt(v.listP50Ms, 1)} ms)`,
      value: `p99 ${fmt(v.listP99Ms, 1)} ms`,
      target: '≤ 30 ms',
      met: v.listP99Ms <= 30,
    });
  } finally {
    if (!process.env.BENCH_KEEP_DB) await db.drop();
    else process.stderr.write(`kept database ${new URL(db.url).pathname.slice(1)}\n`);
  }
  return { vendors };
}

/** Approvals: the list over 100,000 approvals (GraphQL and REST), the detail, a change's push. */
export async function approvalsPart({ admin, services, rows }: PartContext) {
  let approvals: ApprovalFigures | undefined;
  const db = await freshDatabase(admin, 'approvals');
  try {
    const a = await benchApprovals(benchEnv(localSocketUrl(db.url) ?? db.url, services.redisUrl), quick);
    approvals = a;
    const within = Math.abs(a.rest.perSecond - a.graphql.perSecond) / a.graphql.perSecond;
    rows.push({
      figure: `approvals list via GraphQL, 25 rows, status filter, newest first, over ${fmt(a.approvals)} approvals (${a.clients} clients, ${fmt(a.graphql.requests)} requests, p50 ${fmt(a.graphql.p50, 1)} ms)`,
      value: `${fmt(a.graphql.perSecond)} req/s, p99 ${fmt(a.graphql.p99, 1)} ms`,
      target: '≥ 1,500 req/s, p99 ≤ 30 ms',
      met: a.graphql.perSecond >= 1500 && a.graphql.p99 <= 30,
    });
    rows.push({
      figure: `approvals list via REST, the same (p50 ${fmt(a.rest.p50, 1)} ms)`,
      value: `${fmt(a.rest.perSecond)} req/s, p99 ${fmt(a.rest.p99, 1)} ms (${fmt(within * 100, 1)} % from GraphQL)`,
      target: '≥ 1,500 req/s, p99 ≤ 30 ms, within 15 %',
      met: a.rest.perSecond >= 1500 && a.rest.p99 <= 30 && within <= 0.15,
    });
    const cpu = (f: typeof a.rest) =>
      `${fmt(f.cpuUs.gateway)} · ${fmt(f.cpuUs.postgres)} · ${fmt(f.cpuUs.client)}`;
    rows.push({
      figure:
        'approvals list: CPU per request, µs (gateway · Postgres · bench client), and bytes an answer, GraphQL / REST',
      value: `${cpu(a.graphql)}, ${fmt(a.graphql.bytes)} B / ${cpu(a.rest)}, ${fmt(a.rest.bytes)} B`,
      target: '',
      met: null,
    });
    const apart = (a.rest.perSecond - a.graphqlAll.perSecond) / a.graphqlAll.perSecond;
    rows.push({
      figure: `  like for like: GraphQL asking every field a REST row carries (${fmt(a.graphqlAll.bytes)} B an answer, against REST's ${fmt(a.rest.bytes)}; p50 ${fmt(a.graphqlAll.p50, 1)} ms); REST's distance from it`,
      value: `${fmt(a.graphqlAll.perSecond)} req/s, p99 ${fmt(a.graphqlAll.p99, 1)} ms; REST ${apart >= 0 ? '+' : '−'}${fmt(Math.abs(apart) * 100, 1)} %; CPU (gateway · Postgres · client) ${cpu(a.graphqlAll)} µs`,
      target: '',
      met: null,
    });
    rows.push({
      figure: `approval detail (${fmt(a.detail.requests)} requests, p50 ${fmt(a.detail.p50, 1)} ms)`,
      value: `p99 ${fmt(a.detail.p99, 1)} ms`,
      target: '≤ 30 ms',
      met: a.detail.p99 <= 30,
    });
    rows.push({
      figure: `status change → open list's push, then its first page and stat cards read again as the screen does (REST, side by side; ${a.change.changes} changes, p50 ${fmt(a.change.statsP50, 1)} · max ${fmt(a.change.statsMax, 1)} ms; push alone p50 ${fmt(a.change.pushP50, 1)} · p99 ${fmt(a.change.pushP99, 1)} ms)`,
      value: `p99 ${fmt(a.change.statsP99, 1)} ms`,
      target: '≤ 50 ms',
      met: a.change.statsP99 <= 50,
    });
    rows.push({
      figure: `bulk approve, 100 PENDING approvals in one action (request → answer; ${a.bulk.batches} batches, p50 ${fmt(a.bulk.p50)} ms)`,
      value: `slowest ${fmt(a.bulk.max)} ms`,
      target: '≤ 2,000 ms',
      met: a.bulk.max <= 2000,
    });
  } finally {
    await db.drop();
  }
  return { approvals };
}

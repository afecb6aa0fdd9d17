import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Actor } from '../services/auth/permissions.js';
import type { NewEvent } from '../services/eventstore/port.js';
import { ensureLocalServices, localSocketUrl, withDatabase } from '../tools/local-services.js';
import { fmt, freshDatabase, type PartResult, partProcess, quick } from './common.js';
import { percentile } from './measure.js';
import { dropRedisPrefix } from './processes.js';
import { benchEnv } from './vendors.js';

const EVENTS = 1000;
const STREAMS = 5;
const SAMPLES = quick ? 100 : 500;
const RUNS = 3;
const TARGET_MS = 20;

export function streamEvents(approvalId: string, companyId: number): NewEvent[] {
  const t0 = Date.now() - EVENTS * 60_000;
  const at = (i: number) => new Date(t0 + i * 60_000).toISOString();
  const bills = Array.from({ length: 20 }, (_, i) => ({
    Id: String(1000 + i),
    DocNumber: `INV-${i}`,
    TxnDate: '2026-11-01',
    DueDate: '2026-12-01',
    TotalAmt: 100 + i,
    Balance: 100 + i,
    CurrencyRef: 'USD',
    VendorRef: { value: String(50 + (i % 5)), name: `Vendor ${i % 5}` },
    VendorInfo: { CompanyName: `Vendor ${i % 5} LLC` },
    VendorAddr: {
      Line1: '1 Main St',
      City: 'Springfield',
      CountrySubDivisionCode: 'IL',
      PostalCode: '62701',
    },
    Line: [
      { Id: '1', Description: 'Paper', Amount: 100 + i, Qty: 1, ItemName: 'Paper', AccountName: 'Supplies' },
    ],
    AttachableId: null,
    InvoiceFileName: null,
  }));
  const events: NewEvent[] = [
    {
      id: randomUUID(),
      type: 'ApprovalCreated',
      data: {
        approvalId,
        companyId,
        priority: 'HIGH',
        managerId: null,
        createdBy: 1,
        bills,
        vendorContacts: [0, 1, 2, 3, 4].map((v) => ({
          qbVendorId: String(50 + v),
          email: `ap${v}@vendor.test`,
          phone: null,
        })),
        recipients: ['boss@client.test'],
        confirmedDuplicates: [],
        expiresAt: at(EVENTS + 10_000),
        at: at(0),
      },
    },
  ];
  const priorities = ['URGENT', 'HIGH', 'MEDIUM', 'LOW'];
  for (let i = 1; i < EVENTS; i++)
    events.push({
      id: randomUUID(),
      type: 'ApprovalUpdated',
      data: {
        approvalId,
        companyId,
        priority: priorities[i % 4],
        ...(i % 7 === 0 ? { managerId: null } : {}),
        at: at(i),
      },
    });
  return events;
}

async function measure(): Promise<PartResult> {
  // The product is loaded here, not when run.ts imports this file for auditAsOfPart.
  await import('../services/modules/index.js');
  const { approvalStreamId } = await import('../services/approvals/approval-decider.js');
  const { approvalAsOf } = await import('../services/approvals/as-of.js');
  const { startApp } = await import('../services/main.js');
  const { loadConfig } = await import('../services/shared/config.js');
  process.env.BILLFLOW_QUIET = '1';
  const services = await ensureLocalServices();
  const db = await freshDatabase(withDatabase(services.databaseUrl, 'postgres'), 'asof');
  const env = benchEnv(localSocketUrl(db.url) ?? db.url, services.redisUrl);
  const started = await startApp(
    loadConfig({ ...env, HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'production', ROLE: 'gateway' }),
  );
  const app = started.app;
  const actor: Actor = { id: 1, role: 'ADMIN', email: env.ADMIN_EMAIL };
  try {
    const ids = Array.from({ length: STREAMS }, () => randomUUID());
    const positions = new Map<string, string[]>();
    for (const id of ids) {
      const events = streamEvents(id, 1);
      // In chunks: one transaction of 1,000 events is not how a stream grows, and the log's chain is per append.
      for (let i = 0; i < events.length; i += 100)
        await app.store.append(approvalStreamId(id), events.slice(i, i + 100), i === 0 ? 'no_stream' : i);
      positions.set(
        id,
        (await app.store.readStream(approvalStreamId(id))).events.map((e) => e.position),
      );
    }
    const pick = () => {
      const id = ids[Math.floor(Math.random() * ids.length)];
      const ps = positions.get(id)!;
      return { id, position: ps[Math.floor(Math.random() * ps.length)] };
    };
    // cold: as a process that has not read the stream yet (its kept streams are per AppServices).
    const one = async (cold = false) => {
      const { id, position } = pick();
      const t = performance.now();
      const a = await approvalAsOf(cold ? { ...app } : app, actor, id, { position });
      const ms = performance.now() - t;
      if (a.asOf.position !== position || a.steps.length !== EVENTS) throw new Error('a wrong answer');
      return ms;
    };
    type Run = { p50: number; p99: number; max: number };
    const series = async (cold: boolean, n: number) => {
      const runs: Run[] = [];
      for (let r = 0; r < RUNS; r++) {
        for (let i = 0; i < 20; i++) await one(cold);
        const samples: number[] = [];
        for (let i = 0; i < n; i++) samples.push(await one(cold));
        samples.sort((x, y) => x - y);
        runs.push({ p50: percentile(samples, 50), p99: percentile(samples, 99), max: samples.at(-1)! });
      }
      return { runs, median: [...runs].sort((x, y) => x.p99 - y.p99)[1] };
    };
    const warm = await series(false, SAMPLES);
    const cold = await series(true, Math.round(SAMPLES / 2.5));
    const row = (s: { runs: Run[]; median: Run }, what: string, n: number) => ({
      figure: `time travel: an approval as of a random event of a ${fmt(EVENTS)}-event stream, ${what} (${n} calls a run, median of ${RUNS}; p50 ${fmt(s.median.p50, 1)} ms)`,
      value: `p99 ${fmt(s.median.p99, 1)} ms (${s.runs.map((x) => fmt(x.p99, 1)).join(' · ')})`,
      target: `p99 ≤ ${TARGET_MS} ms`,
      met: s.median.p99 <= TARGET_MS,
    });
    return {
      rows: [
        row(warm, 'scrubbing a stream the process has read (the events after its last read again)', SAMPLES),
        row(
          cold,
          'a stream the process has not read yet (all 1,000 events read and opened)',
          Math.round(SAMPLES / 2.5),
        ),
      ],
      data: { auditAsOf: { events: EVENTS, streams: STREAMS, warm, cold } },
    };
  } finally {
    await started.close();
    await dropRedisPrefix(env.REDIS_URL, env.REDIS_PREFIX);
    await db.drop();
    await services.stop();
  }
}

/** The part for run.ts: this file in a process of its own. */
export const auditAsOfPart = (): Promise<PartResult> =>
  partProcess('audit-asof', fileURLToPath(import.meta.url), { args: quick ? ['--quick'] : [] });

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await measure();
  for (const r of result.rows) process.stderr.write(`${r.figure}: ${r.value} (target ${r.target})\n`);
  process.stdout.write(`\n${JSON.stringify(result)}\n`);
  process.exit(0);
}

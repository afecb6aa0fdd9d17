// `npm run bench`: every figure the issues ask for, measured in one run on the same local Postgres
// and Redis, printed as one table with targets. Results are also written to .local/bench.json.
// Each part runs in a process of its own: this file again with `--part=`, which runs part.ts (the
// parts' own files are report-*.ts). Run in one process, a part paid for the parts before it (the
// replay took 1.3 – 1.45 s after the append part instead of 0.86 – 0.96 s alone, and the latency
// client's heap had grown with every earlier part).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM_PATH } from '../e2e/support/browser.js';
import { NODE_FLAGS } from '../services/shared/node-flags.js';
import { aptInstall, ensureLocalServices, ROOT } from '../tools/local-services.js';
import { auditAsOfPart } from './audit-asof.js';
import { auditVerifyPart } from './audit-verify.js';
import { bankPart } from './bank.js';
import { captureProcess, fmt, type PartResult, partProcess, quick, type Row } from './common.js';
import { damonState } from './host.js';
import { nachaPart } from './nacha.js';
import { runOnePart } from './part.js';
import { paymentsPart } from './payments.js';

/** `--only=append,replay,latency,floor,web,vendors,approvals,bills,bank` runs a subset (the names below). */
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');
const PARTS = [
  'append',
  'replay',
  'latency',
  'floor',
  'web',
  'vendors',
  'approvals',
  'bills',
  'nacha',
  'payments',
  'bank',
  'audit-asof',
  'audit-verify',
] as const;
/** Set in a part's own process: the one part it runs. */
const part = process.argv.find((a) => a.startsWith('--part='))?.slice(7);

/** Starts the local services once, runs each wanted part in a process of its own, prints the table. */
async function main() {
  process.env.BILLFLOW_QUIET = '1';
  const services = await ensureLocalServices();
  const rows: Row[] = [];
  const data: Record<string, unknown> = {};
  const damon = damonState();
  if (damon !== null)
    rows.push({
      figure: "host: the kernel's DAMON memory reclaim (its sampling shows in the latency tail)",
      value: damon,
      target: '',
      met: null,
    });
  // A fresh machine has no Chromium yet: install it as the test runner does (tools/test.ts).
  if ((!only || only.includes('web')) && !existsSync(CHROMIUM_PATH)) aptInstall(['chromium']);
  const failed: string[] = [];
  try {
    for (const name of PARTS) {
      if (only && !only.includes(name)) continue;
      // One part failing must not throw away the figures the others took: it shows as a failed row.
      const result = await (name === 'replay'
        ? replayMedian(services)
        : name === 'bills'
          ? billsLoad()
          : name === 'nacha'
            ? nachaPart()
            : name === 'payments'
              ? paymentsPart()
              : name === 'bank'
                ? bankPart()
                : name === 'audit-asof'
                  ? auditAsOfPart()
                  : name === 'audit-verify'
                    ? auditVerifyPart()
                    : runPart(name, services)
      ).catch((err: Error) => {
        process.stderr.write(`${err.message}\n`);
        failed.push(name);
        return {
          rows: [
            {
              figure: `${name}: the part failed (its error is above)`,
              value: 'failed',
              target: '',
              met: false,
            },
          ],
          data: {},
        } as PartResult;
      });
      rows.push(...result.rows);
      Object.assign(data, result.data);
    }
  } finally {
    await services.stop();
  }
  print(rows);
  mkdirSync(path.join(ROOT, '.local'), { recursive: true });
  writeFileSync(
    path.join(ROOT, '.local', 'bench.json'),
    `${JSON.stringify({ at: new Date().toISOString(), rows, ...data }, null, 2)}\n`,
  );
  if (failed.length > 0) process.exitCode = 1;
}

/**
 * The /bills screen under a mixed load: bench/bills-load.bench.ts under its vitest
 * set-up (the test app and simulator), 150 requests a second for 65 s (10 with --quick) after a
 * minute that empties the realm's window, while another app creates bills in the same QuickBooks and
 * a 429 blocks the realm for Intuit's minute. The figure: no request answers 503.
 */
async function billsLoad(): Promise<PartResult> {
  const { code, out } = await captureProcess(
    [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'bench/bills-load.config.ts'],
    { cwd: ROOT, env: { ...process.env, ...(quick ? { BILLS_LOAD_SECONDS: '10' } : {}) } },
  );
  // The bench prints its result as indented JSON inside vitest's output.
  const found = /\{\s*"seconds"[\s\S]*?\n\}/.exec(out);
  if (code !== 0 || !found) throw new Error(`bench part bills failed (exit ${code})`);
  const r = JSON.parse(found[0]) as {
    seconds: number;
    requests: number;
    perSecond: number;
    status503: number;
    percent503: number;
    quickbooksAsked: number;
    quickbooks429: number;
    viewsFromCopy: number;
    billsCreatedInQuickBooks: number;
  };
  return {
    rows: [
      {
        figure: `/bills under a mixed load: 150 requests/s for ${fmt(r.seconds)} s (7.5 /bills views/s, a create every 2 s, the rest list reads), one realm at Intuit's 500/min and 10/s, bills created in it meanwhile, a 429 blocking it for a minute`,
        value: `${fmt(r.status503)} of ${fmt(r.requests)} answered 503 (${r.percent503} %), ${fmt(r.perSecond, 1)} req/s, ${fmt(r.quickbooksAsked)} QuickBooks requests (${fmt(r.quickbooks429)} answered 429), ${fmt(r.viewsFromCopy)} views from the copy, ${fmt(r.billsCreatedInQuickBooks)} bills created in QuickBooks`,
        target: 'no 503',
        met: r.status503 === 0,
      },
    ],
    data: { bills: r },
  };
}

/** Cold replays run in a part process each: a rebuild happens in a freshly started projector. */
const REPLAY_RUNS = quick ? 1 : 3;
/**
 * The sealed replay's figure: its rate over the unsealed control's, measured in turn in the same run.
 * Opening the sealed fields costs about 0.8 s of CPU per 100,000 events on two vCPUs that Postgres
 * shares, and the host moves both rates by a third from one run to the next, so a fixed rate
 * (100,000 events/s) judged the host's minute more than the code; the ratio stayed within
 * 0.68 – 0.73 across such runs (docs/PERFORMANCE.md).
 */
const SEALED_RATIO_TARGET = 0.65;

/**
 * The replay part REPLAY_RUNS times, each in a fresh process on a fresh log, in turn with the same
 * replay of an unsealed log (the control); the run with the median rate of each is counted and every
 * run's rate printed. One rebuild takes about a second, and on this VM the same code's single runs
 * spread over 60,000 – 110,000 events/s with the host's phases.
 */
async function replayMedian(services: { databaseUrl: string; redisUrl: string }): Promise<PartResult> {
  const runs: PartResult[] = [];
  // The control (an unsealed log) in turn with the counted runs, so both see the same host phases.
  const plainRuns: PartResult[] = [];
  for (let i = 0; i < REPLAY_RUNS; i++) {
    runs.push(await runPart('replay', services));
    // A failed control shows as a failed figure; the sealed rates are still printed.
    const control = await runPart('replay', services, ['--unsealed']).catch((err: Error) => {
      process.stderr.write(`the unsealed replay (control) failed: ${err.message}\n`);
      return null;
    });
    if (control) plainRuns.push(control);
  }
  const rate = (r: PartResult) => (r.data.replay as { perSecond: number }).perSecond;
  const medianOf = (rs: PartResult[]) => [...rs].sort((a, b) => rate(a) - rate(b))[Math.floor(rs.length / 2)];
  const listOf = (rs: PartResult[]) =>
    rs.length > 1 ? `, median of ${rs.map((r) => fmt(rate(r))).join(' · ')}` : '';
  const median = medianOf(runs);
  const plain = plainRuns.length > 0 ? medianOf(plainRuns) : null;
  const ratio = plain ? rate(median) / rate(plain) : null;
  const [rateRow, ...otherRows] = median.rows;
  return {
    data: { ...median.data, replayUnsealed: plain?.data.replay ?? null, replaySealedRatio: ratio },
    rows: [
      {
        figure: `projection replay, sealed ÷ unsealed control in the same run (${fmt(rate(median))} ÷ ${plain ? fmt(rate(plain)) : '–'} events/s)`,
        value: ratio === null ? 'failed: the control did not run (its error is above)' : fmt(ratio, 2),
        target: `≥ ${fmt(SEALED_RATIO_TARGET, 2)}`,
        met: ratio !== null && ratio >= SEALED_RATIO_TARGET,
      },
      { ...rateRow, value: `${rateRow.value}${listOf(runs)}` },
      ...otherRows,
      {
        figure: '  control: the same replay with personal fields unsealed (not how the product stores them)',
        value: plain ? `${fmt(rate(plain))} events/s${listOf(plainRuns)}` : 'failed (its error is above)',
        // The target set before personal fields were sealed: what the host and the rebuild give.
        target: '≥ 100,000 events/s',
        met: plain !== null && rate(plain) >= 100_000,
      },
    ],
  };
}

/**
 * This file again with `--part=name`, on the services already running (ensureLocalServices reuses
 * them), under the Node flags every product process runs with: the replay part rebuilds in its own
 * process as a projector does, and without them measured a young generation the product never has
 * (56,800 – 64,400 events/s against 67,800 – 91,600 with them, alternating on one host).
 */
function runPart(
  name: string,
  services: { databaseUrl: string; redisUrl: string },
  args: string[] = [],
): Promise<PartResult> {
  return partProcess(name, fileURLToPath(import.meta.url), {
    flags: NODE_FLAGS,
    args: [`--part=${name}`, ...(quick ? ['--quick'] : []), ...args],
    env: { ...process.env, DATABASE_URL: services.databaseUrl, REDIS_URL: services.redisUrl },
  });
}

function print(rows: Row[]) {
  const w = [Math.max(...rows.map((r) => r.figure.length)), Math.max(...rows.map((r) => r.value.length)), 20];
  const line = (a: string, b: string, c: string, d: string) =>
    `| ${a.padEnd(w[0])} | ${b.padEnd(w[1])} | ${c.padEnd(w[2])} | ${d} |`;
  process.stdout.write(`\n${line('figure', 'measured', 'target', 'met')}\n`);
  process.stdout.write(`|${'-'.repeat(w[0] + 2)}|${'-'.repeat(w[1] + 2)}|${'-'.repeat(w[2] + 2)}|-----|\n`);
  for (const r of rows)
    process.stdout.write(
      `${line(r.figure, r.value, r.target, r.met === null ? '' : r.met ? 'yes' : 'NO')}\n`,
    );
  process.stdout.write('\n');
}

(part ? runOnePart(part) : main()).then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err?.stack ?? err}\n`);
    process.exit(1);
  },
);

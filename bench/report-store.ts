// The event store's parts: append throughput against Emmett's store, and the projection replay.
import { type AppendFigures, benchEmmett, benchOurs } from './append.js';
import { checkpoint, fmt, freshDatabase, type PartContext, quick } from './common.js';
import { benchReplay } from './replay.js';

/** 1. Append throughput, ours vs Emmett, same server, same load shape. */
export async function appendPart({ admin, rows }: PartContext) {
  const perWriter = quick ? 100 : 1000;
  // Three rounds in turn (ours, Emmett, ours, Emmett, …); the round with the median ratio is
  // counted and every round's ratio is printed. On this VM one store's run can be 30 % slower than
  // the next for no reason of its own (the host's noise), and a single pair of runs gave 3.6 – 6.3×.
  const rounds: Array<{ o: AppendFigures; e: AppendFigures; ratio: number }> = [];
  for (let round = 0; round < (quick ? 1 : 3); round++) {
    const oursDb = await freshDatabase(admin, 'ours');
    const emmettDb = await freshDatabase(admin, 'emmett');
    // Creating and dropping databases forces checkpoints; one right before each store's run puts
    // both in the same state (after a checkpoint each page's first change writes the whole page to
    // the WAL), instead of the store that runs first paying for the drop before it.
    await checkpoint(admin);
    const o = await benchOurs(oursDb.url, perWriter);
    await checkpoint(admin);
    const e = await benchEmmett(emmettDb.url, perWriter);
    rounds.push({ o, e, ratio: o.perSecond / e.perSecond });
    await oursDb.drop();
    await emmettDb.drop();
  }
  const byRatio = [...rounds].sort((a, b) => a.ratio - b.ratio);
  const { o, e } = byRatio[Math.floor(byRatio.length / 2)];
  const allRatios =
    rounds.length > 1 ? ` (rounds: ${rounds.map((r) => `${fmt(r.ratio, 2)}×`).join(', ')})` : '';
  const ratio = o.perSecond / e.perSecond;
  rows.push({
    figure: 'append, 16 writers, 1 event/command: Billflow Postgres store',
    value: `${fmt(o.perSecond)} events/s`,
    target: '',
    met: null,
  });
  rows.push({
    figure: 'append, 16 writers, 1 event/command: Emmett PostgreSQL store',
    value: `${fmt(e.perSecond)} events/s`,
    target: '',
    met: null,
  });
  rows.push({
    figure: 'append throughput ratio (ours / Emmett)',
    value: `${fmt(ratio, 2)}×${allRatios}`,
    target: '≥ 5×',
    met: ratio >= 5,
  });
  return { ours: o, emmett: e };
}

/** 2. Projection replay of 100,000 events into the users read model. */
export async function replayPart({ admin, rows }: PartContext) {
  const replayDb = await freshDatabase(admin, 'replay');
  const r = await benchReplay(replayDb.url, quick ? 20_000 : 100_000, {
    sealed: !process.argv.includes('--unsealed'),
  });
  // BENCH_KEEP_DB=1 keeps the replay's, the vendors' and the latency part's databases, to try their reads in psql (drop
  // them by hand after).
  if (!process.env.BENCH_KEEP_DB) await replayDb.drop();
  else process.stderr.write(`kept database ${new URL(replayDb.url).pathname.slice(1)}\n`);
  // Judged by replayMedian against the unsealed control of the same run, not on its own.
  rows.push({
    figure: `  projection replay, ${fmt(r.events)} events → users table, personal fields ${process.argv.includes('--unsealed') ? 'unsealed' : 'sealed as stored'}`,
    value: `${fmt(r.perSecond)} events/s (${fmt(r.seconds, 2)} s)`,
    target: '',
    met: null,
  });
  rows.push({
    figure: '  CPU the replay cost (ms, /proc; the rebuilding process · Postgres)',
    value: `${fmt(r.cpu.replay)} · ${fmt(r.cpu.postgres)}`,
    target: '',
    met: null,
  });
  return { replay: r };
}

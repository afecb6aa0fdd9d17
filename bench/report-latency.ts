// Latency parts: command → subscriber through a running product, and the floor under it (the same
// hops and processes with none of the product's code).
import { randomBytes } from 'node:crypto';
import { localSocketUrl } from '../tools/local-services.js';
import { checkpoint, fmt, freshDatabase, type PartContext, quick } from './common.js';
import { type CpuGroups, cpuDelta, cpuSnapshot } from './cpu.js';
import { benchFloor, type FloorFigures } from './floor.js';
import { benchLatency, type LatencyFigures } from './latency.js';
import { dropRedisPrefix, signInWhenReady, startRole } from './processes.js';

/** 3. Command-to-subscriber latency at 100 commands/s through a running product. */
export async function latencyPart({ admin, services, rows }: PartContext) {
  const appDb = await freshDatabase(admin, 'latency');
  const env = {
    // Over the local server's Unix socket when there is one, as `npm start` runs the product.
    DATABASE_URL: localSocketUrl(appDb.url) ?? appDb.url,
    REDIS_URL: services.redisUrl,
    REDIS_PREFIX: `bench_${randomBytes(3).toString('hex')}`,
    LOG_LEVEL: 'error',
    JWT_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ADMIN_EMAIL: 'admin@bench.test',
    ADMIN_PASSWORD: 'bench-admin-pass',
    // The sign-in below is retried until the projector has the admin; each miss counts as a failure.
    LOGIN_MAX_FAILURES: '1000',
  };
  // As deployed (docker-compose.yml): a projector and a gateway process; this one is only the client.
  const projector = await startRole('projector', env);
  const gateway = await startRole('gateway', env);
  const started = {
    url: gateway.url,
    close: async () => {
      await gateway.stop();
      await projector.stop();
    },
  };
  const base = started.url!;
  const token = (await signInWhenReady(base, env.ADMIN_EMAIL, env.ADMIN_PASSWORD)).tokens.accessToken;
  // Enough users that one is edited at most every 2 s even at 300 commands/s: a push carries the
  // row as it is when sent, so a faster re-edit of the same user would hide the earlier marker.
  const userIds: number[] = [];
  for (let i = 0; i < (quick ? 200 : 600); i++) {
    const r = await (
      await fetch(`${base}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ email: `u${i}@bench.test`, password: 'bench-user-pass' }),
      })
    ).json();
    userIds.push(r.data.id);
  }
  // CPU per command, from /proc: the two product processes, every Postgres backend, Redis.
  const groups: CpuGroups = {
    gateway: [gateway.pid],
    projector: [projector.pid],
    postgres: { named: 'postgres' },
    redis: { named: 'redis-server' },
  };
  // What the processes cost with no commands at all (timers, leases, polls), per second: at 100
  // commands/s a millisecond of it per second is 10 µs per command.
  await new Promise((r) => setTimeout(r, 2000));
  const idleBefore = cpuSnapshot(groups);
  const idleStarted = performance.now();
  await new Promise((r) => setTimeout(r, 5000));
  const idleCpu = cpuDelta(idleBefore, cpuSnapshot(groups));
  const idleSeconds = (performance.now() - idleStarted) / 1000;
  const runs: Array<{
    rate: number;
    /** Null: the warming run, shown but not a figure. */
    target: number | null;
    figures: LatencyFigures;
    cpu: Record<string, number>;
  }> = [];
  // BENCH_RATES=30,100 measures other rates (their target: 100/s's), to see what grows with the rate.
  const rates: ReadonlyArray<readonly [number, number]> = process.env.BENCH_RATES
    ? process.env.BENCH_RATES.split(',').map((r) => [Number(r), Number(r) <= 100 ? 25 : 50] as const)
    : [
        [100, 25],
        [300, 50],
      ];
  // The first run warms the product, and is shown apart. In the first seconds after a start V8
  // is still optimizing the command path: five runs of 10 s at 100/s in a row, twice, cost the
  // gateway 4,310 – 4,480 µs of CPU a command in the first and 2,610 – 3,360 in the four after, and
  // the first run's p99 was the highest or second highest. A product in service is past that.
  const warming = [rates[0][0], null] as const;
  for (const [rate, target] of [warming, ...rates]) {
    let before: Record<string, number> = {};
    let cpu: Record<string, number> = {};
    // The parts before this one (appends, a 100,000-event replay, database drops) leave the
    // checkpointer a backlog that it spreads over minutes: flushed now, not during the measurement.
    await checkpoint(admin);
    const figures = await benchLatency(base, token, userIds, rate, quick ? 3 : 10, 3, {
      countedStart: () => {
        before = cpuSnapshot(groups);
      },
      countedEnd: () => {
        cpu = cpuDelta(before, cpuSnapshot(groups));
      },
    });
    runs.push({ rate, target, figures, cpu });
  }
  const latency = { runs, idleCpuMsPerSecond: cpuDelta({}, idleCpu) };
  rows.push({
    figure: '  CPU with no commands (ms per second, /proc; gateway · projector · Postgres · Redis)',
    value: ['gateway', 'projector', 'postgres', 'redis']
      .map((k) => fmt(idleCpu[k] / idleSeconds, 1))
      .join(' · '),
    target: '',
    met: null,
  });
  await started.close();
  // Its queues' keys too: each run left about 600 jobs behind, and the shared Redis grew run by run.
  await dropRedisPrefix(env.REDIS_URL, env.REDIS_PREFIX);
  if (!process.env.BENCH_KEEP_DB) await appDb.drop();
  else process.stderr.write(`kept database ${new URL(appDb.url).pathname.slice(1)}\n`);
  for (const { rate, target, figures: l, cpu } of runs) {
    const per = (ms: number) => fmt((ms / l.commands) * 1000, 0);
    const total = Object.values(cpu).reduce((a, b) => a + b, 0);
    if (target === null) {
      rows.push({
        figure: `  warming, not a figure: the first run after the start, ${rate}/s (${l.received}/${l.commands}; p99, CPU a command, gateway's)`,
        value: `p99 ${fmt(l.p99, 1)} ms; ${per(total)} µs, ${per(cpu.gateway)} µs`,
        target: '',
        met: null,
      });
      continue;
    }
    rows.push({
      figure: `command → subscriber latency at ${rate} commands/s (${l.received}/${l.commands} received)`,
      value: `p50 ${fmt(l.p50, 1)} ms · p95 ${fmt(l.p95, 1)} ms · p99 ${fmt(l.p99, 1)} ms`,
      target: `p99 ≤ ${target} ms`,
      met: l.p99 <= target && l.received === l.commands,
    });
    rows.push({
      figure: `  the same mutations' round trip at ${rate}/s (answers after its read model caught up)`,
      value: `p50 ${fmt(l.mutationP50, 1)} ms · p99 ${fmt(l.mutationP99, 1)} ms`,
      target: '',
      met: null,
    });
    rows.push({
      figure: `  CPU per command at ${rate}/s (µs, /proc utime+stime; gateway · projector · Postgres · Redis)`,
      value: `${per(total)} µs = ${per(cpu.gateway)} · ${per(cpu.projector)} · ${per(cpu.postgres)} · ${per(cpu.redis)}`,
      target: '',
      met: null,
    });
  }
  return { latency };
}

/** 3b. The floor under it: the same hops and processes with none of the product's code. */
export async function floorPart({ admin, services, rows }: PartContext) {
  let floor: FloorFigures[] | undefined;
  const floorDb = await freshDatabase(admin, 'floor');
  await checkpoint(admin); // as for the latency part
  try {
    floor = await benchFloor(
      localSocketUrl(floorDb.url) ?? floorDb.url,
      services.redisUrl,
      [100, 300],
      quick ? 3 : 10,
    );
  } finally {
    await floorDb.drop();
  }
  for (const f of floor) {
    const per = (ms: number) => fmt((ms / f.commands) * 1000, 0);
    const total = Object.values(f.cpu).reduce((a, b) => a + b, 0);
    rows.push({
      figure: `floor: the same hops with no product code at ${f.rate}/s (${f.received}/${f.commands}; CPU µs gw · proj · PG · Redis)`,
      value: `p50 ${fmt(f.p50, 1)} · p99 ${fmt(f.p99, 1)} ms; ${per(total)} µs = ${per(f.cpu.gateway)} · ${per(f.cpu.projector)} · ${per(f.cpu.postgres)} · ${per(f.cpu.redis)}`,
      target: '',
      met: null,
    });
  }
  return { floor };
}

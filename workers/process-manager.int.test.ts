// The process-manager runner against real Postgres and a scratch Redis that the test stops and
// starts: a reaction per event happens exactly once although the job worker is killed mid-run, jobs
// crash after their effect, and Redis goes away and comes back; while Redis is away the checkpoint
// does not move past what was not enqueued, and it catches up after.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Kysely, PostgresDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Database } from '../projections/database.js';
import { eventRegistry } from '../schema/shared/events.js';
import { CommandHandler, type Decider } from '../services/app/command-handler.js';
import type { AppServices } from '../services/app/context.js';
import { readCheckpoint } from '../services/consumers/checkpoints.js';
import { listParked, requestRetry } from '../services/consumers/parked.js';
import type { StoredEvent } from '../services/eventstore/port.js';
import { PostgresEventStore } from '../services/eventstore/postgres.js';
import { redisOptions } from '../services/shared/redis.js';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import { readLog } from '../test/support/event-log.js';
import { type ScratchRedis, startScratchRedis } from '../test/support/scratch-services.js';
import { startJobWorkers } from './index.js';
import { consumerName, type JobHandler, type ProcessManager, reactionJobId } from './process-manager.js';
import { ProcessManagerRunner } from './process-manager-runner.js';

const QUEUE = 'test-reactions';
const PREFIX = 'pmtest:q';

type Done = { type: 'TestReactionDone'; data: { source: string } };
/** No state check at all: only the command id keeps a second run of a job from appending again. */
const reactionDecider: Decider<null, { source: string }, Done> = {
  initialState: () => null,
  evolve: (s) => s,
  decide: (c) => [{ type: 'TestReactionDone', data: { source: c.source } }],
  streamId: (source: string) => `reaction-${source}`,
};

const pings: ProcessManager = {
  name: 'test-pings',
  handles: ['TestPinged'],
  react: (e) => {
    if ((e.data as { poison?: boolean }).poison) throw new Error('cannot react to this ping');
    return [
      { queue: QUEUE, name: 'reactToPing', data: { source: e.id }, jobId: reactionJobId('test-pings', e) },
    ];
  },
};

let db: TestDatabase;
let store: PostgresEventStore;
let kysely: Kysely<Database>;
let redis: ScratchRedis;
const logs: Array<{ level: string; msg: string }> = [];
const log = {
  info: (_: unknown, msg?: string) => logs.push({ level: 'info', msg: msg ?? '' }),
  warn: (_: unknown, msg?: string) => logs.push({ level: 'warn', msg: msg ?? '' }),
  error: (_: unknown, msg?: string) => logs.push({ level: 'error', msg: msg ?? '' }),
};

async function ping(n: number, poison = false) {
  return store.append(
    `ping-${n}`,
    [{ id: randomUUID(), type: 'TestPinged', data: { n, poison } }],
    'no_stream',
  );
}

/** Waits until the checkpoint is at or past `position` (done events keep being appended meanwhile). */
async function atLeast(name: string, position: string) {
  await expect
    .poll(async () => ((await readCheckpoint(kysely, name))?.position ?? '') >= position, { timeout: 30_000 })
    .toBe(true);
}

async function doneEvents(): Promise<StoredEvent[]> {
  return (await readLog(store)).filter((e) => e.type === 'TestReactionDone');
}

beforeAll(async () => {
  eventRegistry.TestPinged = { version: 1, schema: z.object({ n: z.number(), poison: z.boolean() }) };
  eventRegistry.TestReactionDone = { version: 1, schema: z.object({ source: z.string() }) };
  db = await createTestDatabase('pmrunner', 12);
  store = new PostgresEventStore(db.pool, { pollIntervalMs: 50 });
  await store.init();
  kysely = new Kysely({ dialect: new PostgresDialect({ pool: db.pool }) });
  redis = await startScratchRedis();
}, 60_000);

afterAll(async () => {
  await store?.close();
  await kysely?.destroy().catch(() => {});
  await redis?.close();
  await db?.drop();
  delete eventRegistry.TestPinged;
  delete eventRegistry.TestReactionDone;
});

describe('process-manager runner', () => {
  it('every reaction happens exactly once through a killed worker, crashing jobs and a Redis outage', {
    timeout: 180_000,
  }, async () => {
    const commands = new CommandHandler(store);
    const app = { commands, log } as unknown as AppServices;
    const crashed = new Set<string>();
    const handler: JobHandler = async (_app, job) => {
      await new Promise((r) => setTimeout(r, 15));
      await commands.handle(
        reactionDecider,
        `reaction-${job.data.source}`,
        { source: job.data.source },
        {
          commandId: job.id,
        },
      );
      // Every fifth job dies after its effect, once: BullMQ runs it again, the event store dedupes.
      if (Number(job.data.n ?? 0) % 5 === 0 && !crashed.has(job.id as string)) {
        crashed.add(job.id as string);
        throw new Error('crashed after the effect');
      }
    };
    const handlers = { [QUEUE]: { reactToPing: handler } };
    const pmWithN: ProcessManager = {
      ...pings,
      react: (e) =>
        pings.react(e).map((j) => ({ ...j, data: { ...j.data, n: (e.data as { n: number }).n } })),
    };
    const connection = redisOptions(redis.url);
    const runner = new ProcessManagerRunner({
      pool: db.pool,
      store,
      processManagers: [pmWithN],
      connection,
      prefix: PREFIX,
      log,
      batchSize: 10,
      standbyRetryMs: 50,
      restartDelayMs: 20,
      enqueueTimeoutMs: 1000,
      enqueueBackoff: { firstDelayMs: 50, maxDelayMs: 300 },
      jobs: { backoffMs: 50 },
    });
    const workerOptions = { lockDuration: 2000, stalledInterval: 500 };
    await runner.start();
    let workers = startJobWorkers(app, handlers, {
      connection,
      prefix: PREFIX,
      concurrency: 4,
      worker: workerOptions,
    });
    const name = consumerName(pings);
    try {
      const first = 60;
      for (let n = 1; n <= first; n++) await ping(n);
      // Mid-run: some reactions done, not all.
      await expect
        .poll(async () => (await doneEvents()).length, { timeout: 30_000, interval: 20 })
        .toBeGreaterThan(5);
      expect((await doneEvents()).length).toBeLessThan(first);
      // The worker dies abruptly (its jobs in flight are left active, to be found stalled).
      await workers.close(true);
      // Everything so far is enqueued; then Redis goes away (its data saved, as a persistent Redis keeps it).
      const head1 = await store.headPosition();
      await atLeast(name, head1);
      const admin = new Redis(redis.url);
      await admin.save();
      admin.disconnect();
      await redis.stop();

      const second: string[] = [];
      for (let n = first + 1; n <= first + 40; n++) second.push((await ping(n)).position);
      await new Promise((r) => setTimeout(r, 2000));
      // Nothing enqueued, so the checkpoint has not moved past any of the new events.
      const during = (await readCheckpoint(kysely, name))?.position ?? '';
      expect(during < second[0]).toBe(true);
      expect(logs.filter((l) => /cannot enqueue reaction jobs/.test(l.msg))).toHaveLength(1);

      await redis.start();
      workers = startJobWorkers(app, handlers, {
        connection,
        prefix: PREFIX,
        concurrency: 4,
        worker: workerOptions,
      });
      const head2 = await store.headPosition();
      await atLeast(name, head2);
      expect(logs.filter((l) => /Redis takes reaction jobs again/.test(l.msg))).toHaveLength(1);
      await expect
        .poll(async () => (await doneEvents()).length, { timeout: 60_000, interval: 100 })
        .toBe(100);
      // Drained: no job left to run, and still exactly one reaction per ping.
      const queue = new Queue(QUEUE, { connection, prefix: PREFIX });
      await expect
        .poll(
          async () => {
            const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed');
            return c.waiting + c.active + c.delayed + c.failed;
          },
          { timeout: 30_000 },
        )
        .toBe(0);
      expect((await queue.getJobCounts('completed')).completed).toBe(100);
      await queue.close();
      // The reactions' events, read until all are in (a read can stop short on a busy cluster).
      let log: StoredEvent[] = [];
      await expect
        .poll(
          async () => {
            log = await readLog(store);
            return log.filter((e) => e.type === 'TestReactionDone').length;
          },
          { timeout: 30_000 },
        )
        .toBe(100);
      const done = log.filter((e) => e.type === 'TestReactionDone');
      const pinged = log.filter((e) => e.type === 'TestPinged');
      expect(done).toHaveLength(100);
      expect(new Set(done.map((e) => (e.data as { source: string }).source))).toEqual(
        new Set(pinged.map((e) => e.id)),
      );
      expect(crashed.size).toBe(20);
    } finally {
      await workers.close();
      await runner.stop();
    }
  });

  it('parks an event react keeps failing on, goes on with the others, and retries it on request', {
    timeout: 60_000,
  }, async () => {
    let fixed = false;
    const enqueued: string[] = [];
    const flaky: ProcessManager = {
      name: 'test-flaky',
      handles: ['TestPinged'],
      react: (e) => {
        if ((e.data as { poison?: boolean }).poison && !fixed) throw new Error('cannot react to this ping');
        enqueued.push(e.id);
        return [{ queue: QUEUE, name: 'noop', data: {}, jobId: reactionJobId('test-flaky', e) }];
      },
      startAt: 'now',
    };
    const runner = new ProcessManagerRunner({
      pool: db.pool,
      store,
      processManagers: [flaky],
      connection: redisOptions(redis.url),
      prefix: `${PREFIX}2`,
      log,
      standbyRetryMs: 50,
      restartDelayMs: 20,
      retry: { attempts: 3, firstDelayMs: 10, maxDelayMs: 20 },
      retryPollMs: 100,
    });
    await runner.start();
    try {
      await expect.poll(() => runner.active.size).toBe(1);
      // 'now' is fixed when the checkpoint is written, after the lease: a ping before that could fall
      // before 'now' (CI, once, with headPosition settling a held read: 1 reaction of 2).
      await expect.poll(async () => Boolean(await readCheckpoint(kysely, 'pm:test-flaky'))).toBe(true);
      await ping(1001);
      const bad = await ping(1002, true);
      await ping(1003);
      const head = await store.headPosition();
      await expect
        .poll(async () => (await readCheckpoint(kysely, 'pm:test-flaky'))?.position, { timeout: 20_000 })
        .toBe(head);
      const parked = await listParked(kysely, 'pm:test-flaky');
      expect(parked.map((p) => [p.position, p.attempts, p.error])).toEqual([
        [bad.position, 3, 'cannot react to this ping'],
      ]);
      // startAt 'now': none of the earlier pings were reacted to; the two good ones were.
      expect(enqueued).toHaveLength(2);
      fixed = true;
      expect(await requestRetry(kysely, 'pm:test-flaky', parked[0].eventId)).toBe(true);
      await expect
        .poll(async () => (await listParked(kysely, 'pm:test-flaky')).length, { timeout: 10_000 })
        .toBe(0);
      expect(enqueued).toHaveLength(3);
      const queue = new Queue(QUEUE, { connection: redisOptions(redis.url), prefix: `${PREFIX}2` });
      expect(await queue.getJob(reactionJobId('test-flaky', { id: parked[0].eventId }))).toBeDefined();
      await queue.close();
    } finally {
      await runner.stop();
    }
  });
});

// The maintenance queue on real Redis: the scheduled purge removes refresh tokens that expired over
// a day ago and keeps the others.
import { randomUUID } from 'node:crypto';
import { QueueEvents } from 'bullmq';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { redisOptions } from '../services/shared/redis.js';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { MAINTENANCE_QUEUE } from './maintenance.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

it('purges long-expired refresh tokens when the job runs', async () => {
  const { app } = t.started;
  const old = {
    id: randomUUID(),
    family_id: randomUUID(),
    user_id: 1,
    token_hash: `h-${randomUUID()}`,
    created_at: new Date(0),
    expires_at: new Date(Date.now() - 2 * 86_400_000),
    used_at: null,
    revoked_at: null,
  };
  const fresh = {
    ...old,
    id: randomUUID(),
    token_hash: `h-${randomUUID()}`,
    expires_at: new Date(Date.now() + 86_400_000),
  };
  await app.db.insertInto('auth_refresh_tokens').values([old, fresh]).execute();

  const prefix = `${app.config.REDIS_PREFIX}:q`;
  const connection = redisOptions(app.config.REDIS_URL);
  const events = new QueueEvents(MAINTENANCE_QUEUE, { connection, prefix });
  await events.waitUntilReady();
  const { Queue } = await import('bullmq');
  const queue = new Queue(MAINTENANCE_QUEUE, { connection, prefix });
  // The scheduler is registered at start:
  const schedulers = await queue.getJobSchedulers();
  expect(schedulers.map((s) => s.key)).toContain('purge-refresh-tokens');
  const job = await queue.add('purge-refresh-tokens', {}, { jobId: `test-${randomUUID()}` });
  const result = await job.waitUntilFinished(events, 10_000);
  expect(result.purged).toBeGreaterThanOrEqual(1);
  const left = await app.db
    .selectFrom('auth_refresh_tokens')
    .select('id')
    .where('id', 'in', [old.id, fresh.id])
    .execute();
  expect(left.map((r) => r.id)).toEqual([fresh.id]);
  await queue.close();
  await events.close();
});

it('starts and stops while Redis is down (the schedules wait in the background)', async () => {
  const { startMaintenance } = await import('./maintenance.js');
  // A port nothing listens on: Redis is down for this worker from the start.
  const net = await import('node:net');
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const started = Date.now();
  const m = await startMaintenance(
    t.started.app,
    { ...redisOptions(t.started.app.config.REDIS_URL), port },
    `${t.started.app.config.REDIS_PREFIX}:down`,
  );
  expect(Date.now() - started).toBeLessThan(2_000);
  const closing = Date.now();
  await m.close();
  expect(Date.now() - closing).toBeLessThan(5_000);
});

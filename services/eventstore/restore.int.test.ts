// A logical backup (pg_dump) restored into a fresh cluster: its transaction counter is lower than
// the restored events' ids. What is appended after the restore must still come after them in the
// log, for a reader from the start, a subscriber and a projection whose checkpoint was restored.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../projections/database.js';
import { ProjectionRunner } from '../../projections/runner.js';
import { usersProjection } from '../../projections/users/users.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { readWholeLog } from '../../test/support/event-log.js';
import { createTestRedis, type TestRedis } from '../../test/support/redis.js';
import { type ScratchPostgres, startScratchPostgres } from '../../test/support/scratch-services.js';
import { findPgBin } from '../../tools/local-services.js';
import { readCheckpoint } from '../consumers/checkpoints.js';
import type { NewEvent, Position, StoredEvent } from './port.js';
import { PostgresEventStore } from './postgres.js';
import { verifyLog } from './verify.js';

const run = promisify(execFile);
const silent = { info() {}, warn() {}, error() {} };

function user(id: number): NewEvent[] {
  const at = new Date(Date.UTC(2026, 0, 1) + id * 60_000).toISOString();
  return [
    {
      id: randomUUID(),
      type: 'UserRegistered',
      schemaVersion: 2,
      data: {
        userId: id,
        email: `user${id}@restore.test`,
        firstName: `First${id}`,
        lastName: `Last${id}`,
        role: 'USER',
        isActive: true,
        credentialId: 'hash',
        registeredAt: at,
      },
    },
    {
      id: randomUUID(),
      type: 'UserProfileUpdated',
      data: { userId: id, lastName: `Renamed${id}`, updatedAt: at },
    },
  ];
}

async function nextXid(pool: pg.Pool): Promise<bigint> {
  const r = await pool.query('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS x');
  return BigInt(r.rows[0].x);
}

/** Until the users projection's checkpoint reaches `head` (a position the test has read). */
async function catchUp(pool: pg.Pool, head: Position, timeoutMs = 60_000) {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  await expect
    .poll(async () => ((await readCheckpoint(db, 'users'))?.position ?? '') >= head, { timeout: timeoutMs })
    .toBe(true);
}

function runner(pool: pg.Pool, store: PostgresEventStore, redis: TestRedis) {
  return new ProjectionRunner({
    pool,
    store,
    projections: [usersProjection],
    redis: redis.client,
    prefix: redis.prefix,
    log: silent,
    batchSize: 10,
    standbyRetryMs: 50,
    restartDelayMs: 10,
  });
}

describe('postgres event store: restored from pg_dump into a fresh cluster', () => {
  let source: TestDatabase;
  let target: ScratchPostgres;
  let targetPool: pg.Pool;
  let redis: TestRedis;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'billflow-dump-'));
  const bin = findPgBin();

  beforeAll(async () => {
    if (!bin) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
    [source, target, redis] = await Promise.all([
      createTestDatabase('esrestore', 6),
      startScratchPostgres(),
      createTestRedis('esrestore'),
    ]);
  }, 180_000);

  afterAll(async () => {
    await targetPool?.end().catch(() => {});
    await redis?.cleanup();
    await target?.close();
    await source?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps one order: restored events first, then new appends, for readers, subscribers and projections', {
    timeout: 300_000,
  }, async () => {
    // The source cluster: its transaction ids well above where the fresh one starts.
    const fresh = new pg.Pool({ connectionString: target.url, max: 1 });
    const targetStart = await nextXid(fresh);
    await fresh.end();
    await source.pool.query(`CREATE PROCEDURE burn_xids(n int) LANGUAGE plpgsql AS $$
      BEGIN FOR i IN 1..n LOOP PERFORM pg_current_xact_id(); COMMIT; END LOOP; END $$`);
    const needed = targetStart + 20_000n - (await nextXid(source.pool));
    if (needed > 0n) await source.pool.query('CALL burn_xids($1)', [Number(needed)]);
    await source.pool.query('DROP PROCEDURE burn_xids');

    const before = new PostgresEventStore(source.pool, { pollIntervalMs: 100 });
    await before.init();
    for (let u = 1; u <= 20; u++) await before.append(`user-${u}`, user(u), 'no_stream');
    // Small pages, so the read crosses transactions; waited for whole (test/support/event-log.ts).
    const restoredLog = await readWholeLog(before, 40, { pageSize: 7 });
    expect(restoredLog).toHaveLength(40);
    const restoredHead = restoredLog[39].position;
    const projector = runner(source.pool, before, redis);
    await projector.start();
    await catchUp(source.pool, restoredHead);
    await projector.stop();
    await before.close();

    // Dump, and restore into the fresh cluster.
    const dump = path.join(dir, 'billflow.dump');
    await run(path.join(bin as string, 'pg_dump'), ['-Fc', '-f', dump, '-d', source.url]);
    const admin = new pg.Client({ connectionString: target.url });
    await admin.connect();
    await admin.query('CREATE DATABASE billflow_restored');
    await admin.end();
    const targetUrl = target.url.replace(/\/postgres$/, '/billflow_restored');
    await run(path.join(bin as string, 'pg_restore'), [
      '--no-owner',
      '--no-privileges',
      '-d',
      targetUrl,
      dump,
    ]);
    targetPool = new pg.Pool({ connectionString: targetUrl, max: 8 });
    // The trap is set: the fresh cluster hands out lower ids than the restored events carry.
    expect(await nextXid(targetPool)).toBeLessThan(BigInt(restoredLog[39].position.split(':')[0]));

    const store = new PostgresEventStore(targetPool, { pollIntervalMs: 100 });
    await store.init();
    expect(await store.headPosition()).toBe(restoredHead);
    expect((await readWholeLog(store, 40, { pageSize: 7 })).map((e) => e.position)).toEqual(
      restoredLog.map((e) => e.position),
    );
    // Every restored hash still checks (tamper evidence survives the dump and restore).
    expect((await verifyLog(targetPool)).findings).toEqual([]);

    // A subscriber from the restored head, and the users projection from its restored checkpoint.
    const abort = new AbortController();
    const live: StoredEvent[] = [];
    const following = (async () => {
      for await (const m of store.subscribe({ after: restoredHead, signal: abort.signal }))
        if (m.kind === 'event') live.push(m.event);
    })();
    const restoredProjector = runner(targetPool, store, redis);
    await restoredProjector.start();

    const appended: string[] = [];
    for (let u = 21; u <= 30; u++) {
      const events = user(u);
      await store.append(`user-${u}`, events, 'no_stream');
      appended.push(...events.map((e) => e.id));
    }
    // A restored stream goes on too.
    const more: NewEvent = {
      id: randomUUID(),
      type: 'UserSignedOut',
      data: { userId: 1, at: new Date().toISOString() },
    };
    await store.append('user-1', [more], 2);
    appended.push(more.id);

    // Every event once, in order: the restored ones, then the new ones as appended.
    const log = await readWholeLog(store, restoredLog.length + appended.length, { pageSize: 7 });
    expect(log.map((e) => e.id)).toEqual([...restoredLog.map((e) => e.id), ...appended]);
    const positions = log.map((e) => e.position);
    expect(positions.every((p, i) => i === 0 || p > positions[i - 1])).toBe(true);
    expect(await store.headPosition()).toBe(positions[positions.length - 1]);
    expect((await store.readStream('user-1')).events.map((e) => e.streamVersion)).toEqual([1, 2, 3]);

    await expect.poll(() => live.length, { timeout: 20_000 }).toBe(appended.length);
    expect(live.map((e) => e.id)).toEqual(appended);

    await catchUp(targetPool, positions[positions.length - 1], 30_000);
    await restoredProjector.stop();
    const users = await targetPool.query('SELECT id, last_name FROM users ORDER BY id');
    expect(users.rows.map((r) => r.id)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(users.rows[29].last_name).toBe('Renamed30');
    abort.abort();
    await following;

    // Starting again does not begin yet another epoch: nothing stored is ahead of the counter now.
    await store.init();
    const epochs = await targetPool.query('SELECT epoch FROM es_epochs ORDER BY epoch');
    expect(epochs.rows.map((r) => r.epoch)).toEqual([0, 1]);
    const last = await store.append(
      'user-2',
      [{ id: randomUUID(), type: 'UserSignedOut', data: { userId: 2, at: new Date().toISOString() } }],
      2,
    );
    expect(last.position > positions[positions.length - 1]).toBe(true);
    await store.close();
  });
});

// Large reads of the log open their sealed events on a worker thread (open-worker.ts). What a reader
// gets must not depend on which path opened it: the same data, the same erased fields for a
// forgotten subject, the same refusal of a ciphertext altered in the log.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORGETTING_EVENTS, personalFieldsOf } from '../../schema/shared/events.js';
import { userSubject } from '../../schema/users/events.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { readWholeLog } from '../../test/support/event-log.js';
import type { NewEvent, StoredEvent } from '../eventstore/port.js';
import { START } from '../eventstore/port.js';
import { PostgresEventStore } from '../eventstore/postgres.js';
import { PersonalDataStore } from './personal-data.js';
import { SubjectKeys } from './subject-keys.js';

let db: TestDatabase;
let inner: PostgresEventStore;
const encryptionKey = randomBytes(32).toString('base64');
const USERS = 120;

function registered(u: number): NewEvent {
  return {
    id: randomUUID(),
    type: 'UserRegistered',
    schemaVersion: 2,
    data: {
      userId: u,
      email: `worker${u}@open.test`,
      firstName: `First${u}`,
      lastName: `Last${u}`,
      role: 'USER',
      isActive: true,
      credentialId: 'x',
      registeredAt: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    },
  };
}

function renamed(u: number, i: number): NewEvent {
  return {
    id: randomUUID(),
    type: 'UserProfileUpdated',
    data: {
      userId: u,
      lastName: `Renamed${u}-${i}`,
      updatedAt: new Date(Date.UTC(2026, 0, 2)).toISOString(),
    },
  };
}

/** A store as the product opens it, with a cold key cache (as a new process has). */
function freshStore() {
  return new PersonalDataStore(
    inner,
    new SubjectKeys(db.pool, encryptionKey),
    personalFieldsOf,
    FORGETTING_EVENTS,
  );
}

/**
 * Everything in the log as one reader sees it, in one read (large enough for the worker), read again
 * until whole: a read can stop short for a moment on a busy cluster (test/support/event-log.ts).
 */
async function readEverything(store: PersonalDataStore): Promise<StoredEvent[]> {
  let all: StoredEvent[] = [];
  await expect
    .poll(
      async () => {
        all = await store.readAll(START, 10_000);
        return all.length;
      },
      { timeout: 60_000 },
    )
    .toBe(USERS * 3);
  return all;
}

const view = (events: StoredEvent[]) =>
  events.map((e) => ({ id: e.id, type: e.type, data: e.data, erased: e.erased ?? null }));

beforeAll(async () => {
  db = await createTestDatabase('openworker');
  await SubjectKeys.setup(db.pool);
  inner = new PostgresEventStore(db.pool);
  const writer = freshStore();
  await writer.init();
  // 120 users × (registered + 2 renames) = 360 sealed events: above the worker's threshold.
  for (let u = 1; u <= USERS; u++)
    await writer.append(`user-${u}`, [registered(u), renamed(u, 1), renamed(u, 2)], 'no_stream');
  // User 7 forgotten: its key is deleted, as forgetUser does.
  await new SubjectKeys(db.pool, encryptionKey).forget(userSubject(7));
});

afterAll(async () => {
  await inner?.close();
  await db?.drop();
});

describe('opening a large read on the worker thread', () => {
  it('gives exactly what opening each event on the main thread gives, erased fields included', async () => {
    const big = freshStore();
    const onWorker = view(await readEverything(big));
    await big.close();
    // Small reads never use the worker: the same log read 50 at a time is the main-thread path.
    const small = freshStore();
    const oneByOne = await readWholeLog(small, USERS * 3, { pageSize: 50 });
    expect(onWorker).toEqual(view(oneByOne));
    expect(onWorker).toHaveLength(USERS * 3);

    const first = onWorker.find(
      (e) => e.type === 'UserRegistered' && (e.data as { userId: number }).userId === 1,
    );
    expect(first?.data).toMatchObject({ email: 'worker1@open.test', firstName: 'First1', lastName: 'Last1' });
    expect(first?.data).not.toHaveProperty('pii');
    const forgotten = onWorker.find(
      (e) => e.type === 'UserRegistered' && (e.data as { userId: number }).userId === 7,
    );
    expect(forgotten?.data).toMatchObject({ email: null, firstName: null, lastName: null });
    expect(forgotten?.erased).toEqual(expect.arrayContaining(['email', 'firstName', 'lastName']));
  });

  it('refuses a ciphertext altered in the log, as the main thread does', async () => {
    const victim = await db.pool.query<{ event_id: string }>(
      `SELECT event_id FROM es_events WHERE stream_id = 'user-3' AND event_type = 'UserRegistered'`,
    );
    const id = victim.rows[0].event_id;
    // Flip the ciphertext's first character (base64 stays base64), below the hash chain's trigger.
    await db.pool.query(`ALTER TABLE es_events DISABLE TRIGGER USER`);
    try {
      await db.pool.query(
        `UPDATE es_events SET data = jsonb_set(data::jsonb, '{pii,ct}',
           to_jsonb(CASE WHEN left(data->'pii'->>'ct', 1) = 'A' THEN 'B' ELSE 'A' END || substr(data->'pii'->>'ct', 2)))
         WHERE event_id = $1`,
        [id],
      );
    } finally {
      await db.pool.query(`ALTER TABLE es_events ENABLE TRIGGER USER`);
    }
    const store = freshStore();
    await expect(store.readAll(START, 10_000)).rejects.toThrow(/authenticate/);
    await store.close();
  });
});

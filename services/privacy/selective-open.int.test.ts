// A subscriber opens only the events whose personal fields it reads (SubscribeOptions.opens): the
// others reach it still sealed, and a forgetting event among them still drops its subject's key at
// its place in the log.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../modules/index.js';
import { FORGETTING_EVENTS, personalFieldsOf } from '../../schema/shared/events.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import type { StoredEvent } from '../eventstore/port.js';
import { PostgresEventStore } from '../eventstore/postgres.js';
import { PersonalDataStore } from './personal-data.js';
import { SubjectKeys } from './subject-keys.js';

let tdb: TestDatabase;
const secret = randomBytes(32).toString('base64');
const at = new Date().toISOString();

beforeAll(async () => {
  tdb = await createTestDatabase('selective_open');
  await SubjectKeys.setup(tdb.pool);
});
afterAll(async () => {
  await tdb.drop();
});

const storeOn = (keys: SubjectKeys) =>
  new PersonalDataStore(new PostgresEventStore(tdb.pool), keys, personalFieldsOf, FORGETTING_EVENTS);

/** Every event after `after` as one subscriber gets it, until it has caught up. */
async function subscribed(store: PersonalDataStore, opens?: (e: StoredEvent) => boolean) {
  const abort = new AbortController();
  const got: StoredEvent[] = [];
  for await (const m of store.subscribe({ after: '', signal: abort.signal, opens })) {
    if (m.kind === 'event') got.push(m.event);
    else break;
  }
  abort.abort();
  return got;
}

describe('opening only what a subscriber reads', () => {
  it('hands over still sealed what it does not ask for, and drops a forgotten key where the log says so', async () => {
    const keys = new SubjectKeys(tdb.pool, secret);
    const writer = storeOn(keys);
    await writer.init();
    await writer.append(
      'user-1',
      [
        {
          id: randomUUID(),
          type: 'UserRegistered',
          schemaVersion: 2,
          data: {
            userId: 1,
            email: 'ann@selective.test',
            firstName: 'Ann',
            lastName: 'Lee',
            role: 'USER',
            isActive: true,
            credentialId: 'c',
            registeredAt: at,
          },
        },
        {
          id: randomUUID(),
          type: 'UserProfileUpdated',
          data: { userId: 1, lastName: 'Skipped', updatedAt: at },
        },
      ],
      'no_stream',
    );
    // Forgotten (its key deleted by another process) after a last change, which only the log shows.
    await writer.append(
      'user-1',
      [
        { id: randomUUID(), type: 'UserForgotten', data: { userId: 1, subject: 'user-1', at } },
        {
          id: randomUUID(),
          type: 'UserProfileUpdated',
          data: { userId: 1, lastName: 'After', updatedAt: at },
        },
      ],
      2,
    );
    await new SubjectKeys(tdb.pool, secret).forget('user-1');

    // A reader that still holds the key in memory, as the writer's process does.
    const reader = storeOn(keys);
    const opensProfileAfterForget = (e: StoredEvent) => e.type === 'UserRegistered' || e.streamVersion === 4;
    const events = await subscribed(reader, opensProfileAfterForget);
    expect(events.map((e) => e.type)).toEqual([
      'UserRegistered',
      'UserProfileUpdated',
      'UserForgotten',
      'UserProfileUpdated',
    ]);
    expect(events[0].data).toMatchObject({ email: 'ann@selective.test', firstName: 'Ann' });
    // Not asked for: as stored, nothing deciphered.
    expect(events[1].data).toHaveProperty('pii');
    expect(events[1].data).not.toHaveProperty('lastName');
    expect(JSON.stringify(events[1].data)).not.toContain('Skipped');
    // The forgetting event was not asked for either, yet the key went with it: erased, not opened.
    expect(events[3].data).toMatchObject({ lastName: null });
    expect(events[3].erased).toEqual(['lastName']);
  });

  it('opens everything for a subscriber that does not say', async () => {
    const events = await subscribed(storeOn(new SubjectKeys(tdb.pool, secret)));
    expect(events.every((e) => !('pii' in (e.data as object)))).toBe(true);
  });
});

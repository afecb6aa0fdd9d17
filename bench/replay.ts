// Projection replay: builds the users read model from N events already in the log (registrations,
// then sign-ins, profile and role changes spread over them), timing the rebuild alone. The events
// are sealed as the product stores them, so the replay pays for opening them.
import { randomBytes, randomUUID } from 'node:crypto';
// Registers the modules' events: without it no field would be sealed, and the figure would flatter.
import '../services/modules/index.js';
import { Kysely, PostgresDialect } from 'kysely';
import { rebuildProjection } from '../projections/rebuild.js';
import { usersProjection } from '../projections/users.js';
import { FORGETTING_EVENTS, personalFieldsOf } from '../schema/events/index.js';
import type { Database } from '../services/db.js';
import { createPool } from '../services/db.js';
import type { NewEvent } from '../services/eventstore/port.js';
import { PostgresEventStore } from '../services/eventstore/postgres.js';
import { PersonalDataStore } from '../services/privacy/personal-data.js';
import { SubjectKeys } from '../services/privacy/subject-keys.js';
import { settle } from './settle.js';

export async function benchReplay(databaseUrl: string, total: number) {
  const pool = createPool({ connectionString: databaseUrl, max: 8 });
  // As the product runs it: personal fields sealed per user in the log, opened on every read.
  await SubjectKeys.setup(pool);
  const store = new PersonalDataStore(
    new PostgresEventStore(pool),
    new SubjectKeys(pool, randomBytes(32).toString('base64')),
    personalFieldsOf,
    FORGETTING_EVENTS,
  );
  await store.init();
  const users = Math.max(1, Math.floor(total / 10));
  const at = new Date().toISOString();
  // Each user stream: registered, then 9 more events of the kinds a user stream holds.
  const writes: Promise<unknown>[] = [];
  for (let u = 1; u <= users; u++) {
    const events: NewEvent[] = [
      {
        id: randomUUID(),
        type: 'UserRegistered',
        schemaVersion: 2,
        data: {
          userId: u,
          email: `u${u}@replay.test`,
          firstName: 'Re',
          lastName: `Play${u}`,
          role: 'USER',
          isActive: true,
          credentialId: 'x',
          registeredAt: at,
        },
      },
    ];
    for (let i = 1; i < 10; i++) {
      const kind = i % 3;
      events.push(
        kind === 0
          ? {
              id: randomUUID(),
              type: 'UserProfileUpdated',
              data: { userId: u, lastName: `P${u}-${i}`, updatedAt: at },
            }
          : kind === 1
            ? { id: randomUUID(), type: 'UserSignedIn', data: { userId: u, at, ip: null } }
            : {
                id: randomUUID(),
                type: 'UserRoleChanged',
                data: { userId: u, from: 'USER', to: 'USER', changedAt: at },
              },
      );
    }
    writes.push(store.append(`user-${u}`, events, 'no_stream'));
    if (writes.length >= 64) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  // A replay reads a log that has settled: autovacuum has long set its rows' visibility. Timed right
  // after the bulk insert, the rebuild's first scan would also pay for that (and race autovacuum).
  await settle(databaseUrl, ['es_events']);
  const start = performance.now();
  const result = await rebuildProjection(db, store, usersProjection);
  const seconds = (performance.now() - start) / 1000;
  const rows = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(rows.n) !== users) throw new Error(`replay built ${rows.n} users, expected ${users}`);
  await store.close();
  await pool.end();
  return { events: result.events, seconds, perSecond: result.events / seconds };
}

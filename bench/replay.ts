// Projection replay: builds the users read model from N events already in the log (registrations,
// then sign-ins, profile and role changes spread over them), timing the rebuild alone. The events
// are sealed as the product stores them, so the replay pays for opening them.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';
// Registers the modules' events: without it no field would be sealed, and the figure would flatter.
import '../services/modules/index.js';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from '../projections/database.js';
import { rebuildProjection } from '../projections/rebuild.js';
import { usersProjection } from '../projections/users/users.js';
import { FORGETTING_EVENTS, personalFieldsOf } from '../schema/shared/events.js';
import type { NewEvent } from '../services/eventstore/port.js';
import { PostgresEventStore } from '../services/eventstore/postgres.js';
import { PersonalDataStore } from '../services/privacy/personal-data.js';
import { SubjectKeys } from '../services/privacy/subject-keys.js';
import { createPool } from '../services/shared/db.js';
import { cpuDelta, cpuSnapshot } from './cpu.js';
import { settle } from './settle.js';

/**
 * BENCH_PROFILE=1: the rebuild alone, profiled on this thread (the set-up would swamp a whole-process
 * `--cpu-prof`), written to .local/prof/replay/.
 */
async function startProfile() {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  return {
    async stop() {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      const dir = path.resolve(import.meta.dirname, '..', '.local', 'prof', 'replay');
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `rebuild-${Date.now()}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/**
 * `sealed: false` is the control: the same log and rebuild with personal fields stored as they are
 * (the product never writes such a log). Its rate, taken beside the sealed one in the same minutes,
 * says what opening the fields costs and how fast the host was: on this VM the same rebuild's CPU
 * moves by half with the host's phases.
 */
export async function benchReplay(databaseUrl: string, total: number, { sealed = true } = {}) {
  const pool = createPool({ connectionString: databaseUrl, max: 8 });
  await SubjectKeys.setup(pool);
  // As the product runs it: personal fields sealed per user in the log, opened on every read. The
  // control's log holds only this bench's made-up users, in a database dropped after the run.
  const store = sealed
    ? new PersonalDataStore(
        new PostgresEventStore(pool),
        new SubjectKeys(pool, randomBytes(32).toString('base64')),
        personalFieldsOf,
        FORGETTING_EVENTS,
      )
    : new PostgresEventStore(pool);
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
  const profiler = process.env.BENCH_PROFILE ? await startProfile() : null;
  const groups = { replay: [process.pid], postgres: { named: 'postgres' } };
  const cpuBefore = cpuSnapshot(groups);
  const start = performance.now();
  const result = await rebuildProjection(db, store, usersProjection);
  const seconds = (performance.now() - start) / 1000;
  const cpu = cpuDelta(cpuBefore, cpuSnapshot(groups));
  await profiler?.stop();
  const rows = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(rows.n) !== users) throw new Error(`replay built ${rows.n} users, expected ${users}`);
  await store.close();
  await pool.end();
  return { events: result.events, seconds, perSecond: result.events / seconds, cpu };
}

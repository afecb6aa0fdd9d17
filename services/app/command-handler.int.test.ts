// The command handler against the real Postgres event store: metadata, dedupe by command id,
// bounded conflict retries, and upcasting of older event versions on load.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventRegistry } from '../../schema/shared/events.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { WrongExpectedVersionError } from '../eventstore/port.js';
import { PostgresEventStore } from '../eventstore/postgres.js';
import { userDecider } from '../users/user-decider.js';
import { CommandHandler, eventIdFor } from './command-handler.js';

let db: TestDatabase;
let store: PostgresEventStore;
let handler: CommandHandler;
const now = '2026-01-01T00:00:00.000Z';

const register = (userId: number) =>
  ({
    type: 'RegisterUser',
    userId,
    email: `u${userId}@x.test`,
    firstName: null,
    lastName: null,
    role: 'USER',
    isActive: true,
    credentialId: 'h',
    now,
  }) as const;

beforeAll(async () => {
  db = await createTestDatabase('cmd', 30);
  store = new PostgresEventStore(db.pool);
  await store.init();
  handler = new CommandHandler(store);
});
afterAll(async () => {
  await store.close();
  await db.drop();
});

describe('command handler', () => {
  it('appends the decided events with command, correlation, causation and user in the metadata', async () => {
    const r = await handler.handle(userDecider, 'user-1', register(1), {
      commandId: 'c-1',
      correlationId: 'corr-1',
      causationId: 'cause-1',
      userId: '42',
    });
    expect(r.duplicate).toBe(false);
    expect(r.position).not.toBeNull();
    const { events, version } = await store.readStream('user-1');
    expect(version).toBe(1);
    expect(events[0].id).toBe(eventIdFor('c-1', 0));
    expect(events[0].metadata).toEqual({
      commandId: 'c-1',
      correlationId: 'corr-1',
      causationId: 'cause-1',
      userId: '42',
    });
  });

  it('appends once when the same command id is sent twice, and answers the second like the first', async () => {
    const first = await handler.handle(userDecider, 'user-2', register(2), { commandId: 'c-2' });
    const second = await handler.handle(userDecider, 'user-2', register(2), { commandId: 'c-2' });
    expect(second.duplicate).toBe(true);
    expect(second.position).toBe(first.position);
    expect((await store.readStream('user-2')).version).toBe(1);
  });

  it('returns no events and no position when the decision changes nothing', async () => {
    await handler.handle(userDecider, 'user-3', register(3));
    const r = await handler.handle(userDecider, 'user-3', { type: 'ReactivateUser', now });
    expect(r.events).toEqual([]);
    expect(r.position).toBeNull();
  });

  it('takes turns on one stream within a process: 30 concurrent commands land with one attempt each', async () => {
    await handler.handle(userDecider, 'user-60', register(60));
    const single = new CommandHandler(store, 1);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        single.handle(
          userDecider,
          'user-60',
          { type: 'ChangeUserPassword', credentialId: `h6-${i}`, by: 'self', now },
          { commandId: `turn-${i}` },
        ),
      ),
    );
    expect((await store.readStream('user-60')).version).toBe(31);
  });

  it('retries on concurrent writers so that every command lands exactly once', async () => {
    await handler.handle(userDecider, 'user-4', register(4));
    // 20 concurrent password changes on one stream from four processes (handlers): each conflicts
    // with the others' and re-decides.
    const busy = Array.from({ length: 4 }, () => new CommandHandler(store, 50));
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        busy[i % 4].handle(
          userDecider,
          'user-4',
          { type: 'ChangeUserPassword', credentialId: `h-${i}`, by: 'self', now },
          { commandId: `sign-${i}` },
        ),
      ),
    );
    const { events } = await store.readStream('user-4');
    expect(events.filter((e) => e.type === 'UserPasswordChanged')).toHaveLength(20);
    expect(new Set(events.map((e) => e.metadata.commandId)).size).toBe(21);
  });

  it('gives up after its bounded attempts and reports the conflict', async () => {
    await handler.handle(userDecider, 'user-5', register(5));
    // Ten processes (handlers) with one attempt each: they meet each other's appends.
    const once = Array.from({ length: 10 }, () => new CommandHandler(store, 1));
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        once[i].handle(
          userDecider,
          'user-5',
          { type: 'ChangeUserPassword', credentialId: `h5-${i}`, by: 'self', now },
          { commandId: `s5-${i}` },
        ),
      ),
    );
    const rejected = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(rejected.length).toBeGreaterThan(0);
    for (const r of rejected) expect(r.reason).toBeInstanceOf(WrongExpectedVersionError);
    const landed = results.length - rejected.length;
    expect((await store.readStream('user-5')).version).toBe(1 + landed);
  });

  it('upcasts an older stored event version before folding it', async () => {
    // A v0 shape of UserRoleChanged ({role} instead of {from,to}) stored long ago.
    await handler.handle(userDecider, 'user-6', register(6));
    await store.append(
      'user-6',
      [
        {
          id: randomUUID(),
          type: 'UserRoleChanged',
          schemaVersion: 0,
          data: { userId: 6, role: 'MODERATOR', changedAt: now },
        },
      ],
      1,
    );
    const def = eventRegistry.UserRoleChanged;
    const saved = def.upcasters;
    def.upcasters = {
      0: (d: any) => ({ userId: d.userId, from: 'USER', to: d.role, changedAt: d.changedAt }),
    };
    try {
      const { state } = await handler.load(userDecider, 'user-6');
      expect(state.role).toBe('MODERATOR');
    } finally {
      def.upcasters = saved;
    }
    await expect(handler.load(userDecider, 'user-6')).rejects.toThrow(/No upcaster for UserRoleChanged v0/);
  });

  it('decides on the state it remembers, and reads the stream again once another process wrote', async () => {
    // Two handlers on one store: two gateway processes. Reads are counted on the real store.
    let reads = 0;
    const counted = Object.assign(Object.create(store), {
      readStream: (...args: Parameters<PostgresEventStore['readStream']>) => {
        reads++;
        return store.readStream(...args);
      },
    }) as PostgresEventStore;
    const a = new CommandHandler(counted);
    const b = new CommandHandler(store);
    await a.handle(userDecider, 'user-7', register(7));
    reads = 0;
    for (let i = 0; i < 5; i++)
      await a.handle(userDecider, 'user-7', { type: 'UpdateUserProfile', lastName: `A${i}`, now });
    expect(reads).toBe(0);

    // B deactivates the user: A's memory is stale. A's next edit conflicts, reads, and decides on
    // the real state; a reactivation (a no-op on A's stale "active" state) is not skipped either.
    await b.handle(userDecider, 'user-7', { type: 'DeactivateUser', actorId: null, now });
    const edit = await a.handle(userDecider, 'user-7', { type: 'UpdateUserProfile', lastName: 'After', now });
    expect(edit.state.isActive).toBe(false);
    expect(reads).toBe(1);
    await b.handle(userDecider, 'user-7', { type: 'ReactivateUser', now });
    await b.handle(userDecider, 'user-7', { type: 'DeactivateUser', actorId: null, now });
    const back = await a.handle(userDecider, 'user-7', { type: 'ReactivateUser', now });
    expect(back.events.map((e) => e.type)).toEqual(['UserReactivated']);
    const { events } = await store.readStream('user-7');
    expect(events.map((e) => e.type).slice(-4)).toEqual([
      'UserProfileUpdated',
      'UserReactivated',
      'UserDeactivated',
      'UserReactivated',
    ]);
  });

  it('offers the state it remembers as a hint, and nothing for a stream it never handled', async () => {
    const h = new CommandHandler(store);
    expect(h.rememberedState('user-80')).toBeUndefined();
    await h.handle(userDecider, 'user-80', register(80));
    await h.handle(userDecider, 'user-80', { type: 'UpdateUserProfile', lastName: 'Hint', now });
    expect(h.rememberedState<{ userId: number; lastName: string }>('user-80')).toMatchObject({
      userId: 80,
      lastName: 'Hint',
    });
    expect(new CommandHandler(store).rememberedState('user-80')).toBeUndefined();
  });

  it('reads the stream for a command whose id may repeat, so a retry still finds its events', async () => {
    const h = new CommandHandler(store);
    await h.handle(userDecider, 'user-8', register(8));
    const first = await h.handle(
      userDecider,
      'user-8',
      { type: 'UpdateUserProfile', lastName: 'Once', now },
      { commandId: 'edit-8' },
    );
    const again = await h.handle(
      userDecider,
      'user-8',
      { type: 'UpdateUserProfile', lastName: 'Once', now },
      { commandId: 'edit-8' },
    );
    expect(again.duplicate).toBe(true);
    expect(again.position).toBe(first.position);
    expect((await store.readStream('user-8')).version).toBe(2);
  });

  it('primes only the streams it does not remember, and a stale primed state still yields to the log', async () => {
    // Reads of many streams at once are counted on the real store (a CSV import's chunks).
    const batches: string[][] = [];
    const counted = Object.assign(Object.create(store), {
      readStreams: (ids: string[]) => {
        batches.push([...ids]);
        return store.readStreams(ids);
      },
    }) as PostgresEventStore;
    const a = new CommandHandler(counted);
    const b = new CommandHandler(store);
    for (const n of [90, 91, 92]) await b.handle(userDecider, `user-${n}`, register(n));
    expect(await a.prime(userDecider, ['user-90', 'user-91'])).toBe(2);
    // The second import's chunk: the two are remembered (read or written since), only the third is read.
    expect(await a.prime(userDecider, ['user-90', 'user-91', 'user-92'])).toBe(1);
    expect(batches).toEqual([['user-90', 'user-91'], ['user-92']]);
    await a.handle(userDecider, 'user-91', { type: 'UpdateUserProfile', lastName: 'A', now });
    expect(await a.prime(userDecider, ['user-91'])).toBe(0);

    // Another process deactivates user-90 after A remembered it: A's next edit conflicts on the
    // stale version, reads the stream and decides on what the log says.
    await b.handle(userDecider, 'user-90', { type: 'DeactivateUser', actorId: null, now });
    expect(await a.prime(userDecider, ['user-90'])).toBe(0);
    const edit = await a.handle(userDecider, 'user-90', { type: 'UpdateUserProfile', lastName: 'Late', now });
    expect(edit.state.isActive).toBe(false);
    const { events } = await store.readStream('user-90');
    expect(events.map((e) => e.type)).toEqual(['UserRegistered', 'UserDeactivated', 'UserProfileUpdated']);
  });
});

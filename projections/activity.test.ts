// Activity read model: plain-words descriptions with the actor's and the subject's names.
import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { UserEvent } from '../schema/events/user.js';
import type { StoredEvent } from '../services/eventstore/port.js';
import { createTestDatabase, type TestDatabase } from '../test/support/db.js';
import { activityProjection } from './activity.js';

let tdb: TestDatabase;
let db: Kysely<any>;
let pos = 0;
const at = '2026-03-01T10:00:00.000Z';
const ev = (event: UserEvent, actor: number | null): StoredEvent => ({
  id: randomUUID(),
  type: event.type,
  schemaVersion: 1,
  streamId: `user-${(event.data as any).userId}`,
  streamVersion: 1,
  position: String(++pos).padStart(10, '0'),
  data: event.data,
  metadata: { userId: actor === null ? null : String(actor) },
  createdAt: new Date(Date.parse(at) + pos * 1000),
});
const reg = (
  userId: number,
  firstName: string | null,
  lastName: string | null,
  email: string,
): UserEvent => ({
  type: 'UserRegistered',
  data: {
    userId,
    email,
    firstName,
    lastName,
    role: 'USER',
    isActive: true,
    passwordHash: 'h',
    registeredAt: at,
  },
});

beforeAll(async () => {
  tdb = await createTestDatabase('activity');
  db = new Kysely({ dialect: new PostgresDialect({ pool: tdb.pool }) });
  await activityProjection.setup(db, 'public');
});
afterAll(async () => {
  await tdb.drop();
});

it('describes each event in plain words, newest first by position', async () => {
  const events = [
    ev(reg(1, 'Alice', 'Smith', 'alice@x.test'), null),
    ev(reg(2, null, null, 'bob@x.test'), 1),
    ev({ type: 'UserRoleChanged', data: { userId: 2, from: 'USER', to: 'MODERATOR', changedAt: at } }, 1),
    ev(
      { type: 'UserProfileUpdated', data: { userId: 2, firstName: 'Bob', lastName: 'Stone', updatedAt: at } },
      1,
    ),
    ev({ type: 'UserSignedIn', data: { userId: 2, at, ip: null } }, 2),
    ev({ type: 'UserPasswordChanged', data: { userId: 2, passwordHash: 'x', by: 'self', at } }, 2),
    ev({ type: 'UserPasswordChanged', data: { userId: 2, passwordHash: 'y', by: 'admin', at } }, 1),
    ev({ type: 'UserDeactivated', data: { userId: 2, at } }, 1),
    ev({ type: 'UserReactivated', data: { userId: 2, at } }, 1),
    ev({ type: 'UserDeleted', data: { userId: 2, at } }, 1),
  ];
  const notified: string[] = [];
  await db.transaction().execute(async (trx) => {
    for (const e of events)
      await activityProjection.apply(trx, e, { schema: 'public', notify: (n) => notified.push(n.id) });
  });
  const rows = await db
    .selectFrom('activity')
    .select(['description', 'id'])
    .orderBy('position', 'desc')
    .execute();
  expect(rows.map((r) => r.description)).toEqual([
    'Alice Smith deleted user Bob Stone',
    'Alice Smith activated user Bob Stone',
    'Alice Smith deactivated user Bob Stone',
    'Alice Smith set a new password for Bob Stone',
    'Bob Stone changed their password',
    'Bob Stone signed in',
    'Alice Smith updated user bob@x.test',
    'Alice Smith changed the role of bob@x.test from USER to MODERATOR',
    'Alice Smith created user bob@x.test',
    'User Alice Smith was created',
  ]);
  expect(notified).toEqual(events.map((e) => e.id));
});

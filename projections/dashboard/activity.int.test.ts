// Activity read model: plain-words descriptions with the actor's and the subject's names.

import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { schemaVersionOf } from '../../schema/shared/events.js';
import type { UserEvent } from '../../schema/users/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { type ActivityTables, activityProjection } from './activity.js';

let tdb: TestDatabase;
let db: Kysely<ActivityTables>;
let pos = 0;
const at = '2026-03-01T10:00:00.000Z';
const ev = (event: UserEvent, actor: number | null): StoredEvent => ({
  id: randomUUID(),
  type: event.type,
  schemaVersion: schemaVersionOf(event.type),
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
    credentialId: 'h',
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
    ev({ type: 'UserPasswordChanged', data: { userId: 2, credentialId: 'x', by: 'self', at } }, 2),
    ev({ type: 'UserPasswordChanged', data: { userId: 2, credentialId: 'y', by: 'admin', at } }, 1),
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

it('applies a batch exactly as it applies the events one by one (also across batches)', async () => {
  const events = [
    ev(reg(10, 'Cara', 'Diaz', 'cara@x.test'), null),
    ev(reg(11, null, null, 'dan@x.test'), 10),
    ev({ type: 'UserProfileUpdated', data: { userId: 11, firstName: 'Dan', updatedAt: at } }, 10),
    ev({ type: 'UserSignedIn', data: { userId: 11, at, ip: null } }, 11),
    ev({ type: 'UserProfileUpdated', data: { userId: 10, lastName: 'Diaz-Ruiz', updatedAt: at } }, 10),
    ev({ type: 'UserRoleChanged', data: { userId: 11, from: 'USER', to: 'GUEST', changedAt: at } }, 10),
    ev(reg(10, 'Ignored', 'Again', 'x@x.test'), null),
    ev({ type: 'UserDeleted', data: { userId: 11, at } }, 10),
  ];
  const read = async (schema: string) => ({
    activity: await db.withSchema(schema).selectFrom('activity').selectAll().orderBy('position').execute(),
    people: await db
      .withSchema(schema)
      .selectFrom('activity_people')
      .selectAll()
      .orderBy('user_id')
      .execute(),
  });
  for (const schema of ['one_by_one', 'batched']) {
    await db.schema.createSchema(schema).ifNotExists().execute();
    await activityProjection.setup(db, schema);
  }
  const oneNotes: string[] = [];
  const batchNotes: string[] = [];
  await db.transaction().execute(async (trx) => {
    for (const e of events)
      await activityProjection.apply(trx, e, { schema: 'one_by_one', notify: (n) => oneNotes.push(n.id) });
  });
  // Two batches, split between a registration and the events that use the name.
  for (const part of [events.slice(0, 2), events.slice(2)])
    await db.transaction().execute(async (trx) => {
      await activityProjection.applyBatch?.(trx, part, {
        schema: 'batched',
        notify: (n) => batchNotes.push(n.id),
      });
    });
  const one = await read('one_by_one');
  expect(one.activity.map((r) => r.description)).toContain(
    'Cara Diaz-Ruiz changed the role of Dan from USER to GUEST',
  );
  expect(await read('batched')).toEqual(one);
  expect(batchNotes).toEqual(oneNotes);
});

// Users read model: events in, rows out; the batch path gives the same rows as one event at a time.

import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaVersionOf } from '../../schema/shared/events.js';
import type { UserEvent } from '../../schema/users/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import type { ChangeNotice } from '../projection.js';
import { type UsersTables, usersProjection } from './users.js';

let tdb: TestDatabase;
let db: Kysely<UsersTables>;

const t0 = new Date('2026-03-01T10:00:00.000Z');
let pos = 0;
function stored(event: UserEvent, at = t0): StoredEvent {
  pos++;
  return {
    id: randomUUID(),
    type: event.type,
    schemaVersion: schemaVersionOf(event.type),
    streamId: `user-${(event.data as any).userId}`,
    streamVersion: pos,
    position: String(pos).padStart(10, '0'),
    data: event.data,
    metadata: {},
    createdAt: at,
  };
}

const reg = (userId: number, email: string): UserEvent => ({
  type: 'UserRegistered',
  data: {
    userId,
    email,
    firstName: 'F',
    lastName: 'L',
    role: 'USER',
    isActive: true,
    credentialId: 'h',
    registeredAt: t0.toISOString(),
  },
});

const history: StoredEvent[] = [
  stored(reg(1, 'One@Example.com')),
  stored(reg(2, 'two@example.com')),
  stored({ type: 'UserSignedIn', data: { userId: 1, at: '2026-03-02T00:00:00.000Z', ip: null } }),
  stored({ type: 'UserSignedIn', data: { userId: 1, at: '2026-03-03T00:00:00.000Z', ip: null } }),
  stored({
    type: 'UserRoleChanged',
    data: { userId: 2, from: 'USER', to: 'ADMIN', changedAt: t0.toISOString() },
  }),
  stored({
    type: 'UserProfileUpdated',
    data: { userId: 1, email: 'uno@example.com', firstName: null, updatedAt: '2026-03-04T00:00:00.000Z' },
  }),
  stored({ type: 'UserDeactivated', data: { userId: 2, at: t0.toISOString() } }),
  stored(reg(3, 'three@example.com')),
  stored(
    { type: 'UserDeleted', data: { userId: 3, at: t0.toISOString() } },
    new Date('2026-03-05T00:00:00.000Z'),
  ),
  stored({
    type: 'UserPasswordChanged',
    data: { userId: 1, credentialId: 'h2', by: 'self', at: t0.toISOString() },
  }),
];

beforeAll(async () => {
  tdb = await createTestDatabase('users');
  db = new Kysely({ dialect: new PostgresDialect({ pool: tdb.pool }) });
  await db.schema.createSchema('one').execute();
  await db.schema.createSchema('batch').execute();
  await usersProjection.setup(db, 'one');
  await usersProjection.setup(db, 'batch');
});
afterAll(async () => {
  await tdb.drop();
});

describe('users projection', () => {
  it('turns the history into the expected rows, one event at a time and in one batch alike', async () => {
    const notices: ChangeNotice[] = [];
    await db.transaction().execute(async (trx) => {
      for (const e of history)
        await usersProjection.apply(trx, e, { schema: 'one', notify: (n) => notices.push(n) });
    });
    await db.transaction().execute(async (trx) => {
      await usersProjection.applyBatch!(trx, history, { schema: 'batch', notify: () => {} });
    });
    const one = await db.withSchema('one').selectFrom('users').selectAll().orderBy('id').execute();
    const batch = await db.withSchema('batch').selectFrom('users').selectAll().orderBy('id').execute();
    expect(batch).toEqual(one);
    expect(one).toHaveLength(3);
    expect(one[0]).toMatchObject({
      id: 1,
      email: 'uno@example.com',
      email_lower: 'uno@example.com',
      first_name: null,
      last_name: 'L',
      total_logins: 2,
      last_login_at: new Date('2026-03-03T00:00:00.000Z'),
      credential_id: 'h2',
      is_active: true,
    });
    expect(one[1]).toMatchObject({ id: 2, role: 'ADMIN', is_active: false });
    expect(one[2]).toMatchObject({
      id: 3,
      deleted_at: new Date('2026-03-05T00:00:00.000Z'),
      is_active: false,
    });
    expect(notices.map((n) => `${n.topic}:${n.id}`)).toEqual(
      history.map((e) => `user:${(e.data as any).userId}`),
    );
  });
});

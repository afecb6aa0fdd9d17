// Users read model: events in, rows out; the batch path gives the same rows as one event at a time.

import { describe, expect, it } from 'vitest';
import type { UserEvent } from '../../schema/users/events.js';
import { projectionSpec, storedEvent } from '../../test/support/projection-spec.js';
import { usersProjection } from './users.js';

// Every run also holds the batch path (with each memory the runners hand it) to the one-by-one rows.
const spec = projectionSpec(usersProjection);
const t0 = new Date('2026-03-01T10:00:00.000Z');
const stored = (event: UserEvent, at = t0) =>
  storedEvent(event, { streamId: `user-${(event.data as { userId: number }).userId}`, at });

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

const history = [
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

describe('users projection', () => {
  it('turns the history into the expected rows, one event at a time and in one batch alike', async () => {
    await spec.when(history).then(async ({ read, notices }) => {
      const one = await read('users', { orderBy: 'id' });
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
        history.map((e) => `user:${(e.data as { userId: number }).userId}`),
      );
    });
  });
});

// Activity read model: plain-words descriptions with the actor's and the subject's names.

import { expect, it } from 'vitest';
import type { UserEvent } from '../../schema/users/events.js';
import { projectionSpec, storedEvent } from '../../test/support/projection-spec.js';
import { activityProjection } from './activity.js';

// Every run also holds the batch path to the one-by-one path: every table's rows, the notices.
const spec = projectionSpec(activityProjection);
const at = '2026-03-01T10:00:00.000Z';
const ev = (event: UserEvent, actor: number | null) =>
  storedEvent(event, { streamId: `user-${(event.data as { userId: number }).userId}`, userId: actor });
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
  await spec.when(events).then(async ({ read, notices }) => {
    const rows = await read('activity', { select: ['description', 'id'], orderBy: 'position desc' });
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
    expect(notices.map((n) => n.id)).toEqual(events.map((e) => e.id));
  });
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
  // Two batches, split between a registration and the events that use the name.
  await spec
    .given(events.slice(0, 2))
    .when(events.slice(2))
    .then(async ({ read }) =>
      expect((await read('activity')).map((r) => r.description)).toContain(
        'Cara Diaz-Ruiz changed the role of Dan from USER to GUEST',
      ),
    );
});

import { describe, it } from 'vitest';
import type { UserEvent } from '../../schema/users/events.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { userDecider } from './user-decider.js';

const spec = deciderSpec(userDecider);
const now = '2026-01-02T03:04:05.000Z';
const registered = (
  over: Partial<Extract<UserEvent, { type: 'UserRegistered' }>['data']> = {},
): UserEvent => ({
  type: 'UserRegistered',
  data: {
    userId: 7,
    email: 'ann@example.com',
    firstName: 'Ann',
    lastName: 'Lee',
    role: 'USER',
    isActive: true,
    credentialId: 'h1',
    registeredAt: now,
    ...over,
  },
});

describe('user decider', () => {
  it('registers a new user', () => {
    spec
      .given([])
      .when({
        type: 'RegisterUser',
        userId: 7,
        email: 'ann@example.com',
        firstName: 'Ann',
        lastName: 'Lee',
        role: 'USER',
        isActive: true,
        credentialId: 'h1',
        now,
      })
      .then([registered()]);
  });

  it('refuses to register the same user twice', () => {
    spec
      .given([registered()])
      .when({
        type: 'RegisterUser',
        userId: 7,
        email: 'x@y.z',
        firstName: null,
        lastName: null,
        role: 'USER',
        isActive: true,
        credentialId: 'h',
        now,
      })
      .thenRefuses('CONFLICT');
  });

  it('refuses every command on a missing or deleted user', () => {
    spec.given([]).when({ type: 'ReactivateUser', now }).thenRefuses('NOT_FOUND');
    spec
      .given([registered(), { type: 'UserDeleted', data: { userId: 7, at: now } }])
      .when({ type: 'ChangeUserRole', role: 'ADMIN', actorId: 1, now })
      .thenRefuses('NOT_FOUND', 'User not found');
  });

  it('records only the fields that changed in a profile update', () => {
    spec
      .given([registered()])
      .when({ type: 'UpdateUserProfile', email: 'ann@example.com', firstName: 'Annie', lastName: 'Lee', now })
      .then([{ type: 'UserProfileUpdated', data: { userId: 7, firstName: 'Annie', updatedAt: now } }]);
    spec.given([registered()]).when({ type: 'UpdateUserProfile', firstName: 'Ann', now }).then([]);
  });

  it('changes a role and ignores a change to the same role', () => {
    spec
      .given([registered()])
      .when({ type: 'ChangeUserRole', role: 'MODERATOR', actorId: 1, now })
      .then([
        { type: 'UserRoleChanged', data: { userId: 7, from: 'USER', to: 'MODERATOR', changedAt: now } },
      ]);
    spec.given([registered()]).when({ type: 'ChangeUserRole', role: 'USER', actorId: 1, now }).then([]);
  });

  it('does not let an admin demote, deactivate or delete themself', () => {
    const admin = registered({ role: 'ADMIN' });
    spec
      .given([admin])
      .when({ type: 'ChangeUserRole', role: 'USER', actorId: 7, now })
      .thenRefuses('FORBIDDEN');
    spec.given([admin]).when({ type: 'DeactivateUser', actorId: 7, now }).thenRefuses('FORBIDDEN');
    spec.given([admin]).when({ type: 'DeleteUser', actorId: 7, now }).thenRefuses('FORBIDDEN');
  });

  it('deactivates and reactivates idempotently', () => {
    spec
      .given([registered()])
      .when({ type: 'DeactivateUser', actorId: 1, now })
      .then([{ type: 'UserDeactivated', data: { userId: 7, at: now } }]);
    spec
      .given([registered(), { type: 'UserDeactivated', data: { userId: 7, at: now } }])
      .when({ type: 'DeactivateUser', actorId: 1, now })
      .then([]);
    spec
      .given([registered(), { type: 'UserDeactivated', data: { userId: 7, at: now } }])
      .when({ type: 'ReactivateUser', now })
      .then([{ type: 'UserReactivated', data: { userId: 7, at: now } }]);
    spec.given([registered()]).when({ type: 'ReactivateUser', now }).then([]);
  });

  it('decides a role, active or delete change only on the version the caller judged', () => {
    // Judged at version 1 (just registered): decided; a stream that moved since: refused.
    spec
      .given([registered()])
      .when({ type: 'DeactivateUser', actorId: 1, atVersion: 1, now })
      .then([{ type: 'UserDeactivated', data: { userId: 7, at: now } }]);
    spec
      .given([
        registered(),
        { type: 'UserProfileUpdated', data: { userId: 7, firstName: 'A', updatedAt: now } },
      ])
      .when({ type: 'ChangeUserRole', role: 'USER', actorId: 1, atVersion: 1, now })
      .thenRefuses('CONFLICT', 'changed concurrently');
    // Sign-ins stored on user streams before they had their own still count towards the version.
    spec
      .given([registered(), { type: 'UserSignedIn', data: { userId: 7, at: now, ip: null } }])
      .when({ type: 'DeleteUser', actorId: 1, atVersion: 2, now })
      .then([{ type: 'UserDeleted', data: { userId: 7, at: now } }]);
  });

  it('records a password change with who made it', () => {
    spec
      .given([registered()])
      .when({ type: 'ChangeUserPassword', credentialId: 'h2', by: 'admin', now })
      .then([{ type: 'UserPasswordChanged', data: { userId: 7, credentialId: 'h2', by: 'admin', at: now } }]);
  });
});

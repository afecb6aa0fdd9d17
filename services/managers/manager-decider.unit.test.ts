import { describe, it } from 'vitest';
import type { ManagerEvent } from '../../schema/managers/events.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { linksDecider, USER_ALREADY_LINKED } from './links-decider.js';
import { managerDecider } from './manager-decider.js';

const now = '2026-01-02T03:04:05.000Z';
const details = { firstName: 'Mia', lastName: 'Ross', email: 'mia@example.com', phone: null, title: 'CFO' };
const created: ManagerEvent = {
  type: 'ManagerCreated',
  data: { managerId: 3, ...details, status: 'ACTIVE', createdAt: now },
};
const linked = (managerId: number, userId: number): ManagerEvent => ({
  type: 'ManagerUserLinked',
  data: { managerId, userId, at: now },
});
const unlinked = (managerId: number, userId: number): ManagerEvent => ({
  type: 'ManagerUserUnlinked',
  data: { managerId, userId, at: now },
});

describe('manager decider', () => {
  const spec = deciderSpec(managerDecider);

  it('creates an active manager, once', () => {
    spec
      .given([])
      .when({ type: 'CreateManager', managerId: 3, ...details, now })
      .then([created]);
    spec
      .given([created])
      .when({ type: 'CreateManager', managerId: 3, ...details, now })
      .thenRefuses('CONFLICT');
  });

  it('records only the fields that changed, and nothing when none did', () => {
    spec
      .given([created])
      .when({ type: 'UpdateManager', ...details, title: null, phone: '555-0100', now })
      .then([
        { type: 'ManagerUpdated', data: { managerId: 3, phone: '555-0100', title: null, updatedAt: now } },
      ]);
    spec
      .given([created])
      .when({ type: 'UpdateManager', ...details, now })
      .then([]);
  });

  it('refuses changes to a missing or deleted manager', () => {
    spec.given([]).when({ type: 'DeleteManager', now }).thenRefuses('NOT_FOUND', 'Manager not found');
    const deleted: ManagerEvent = { type: 'ManagerDeleted', data: { managerId: 3, at: now } };
    spec
      .given([created, deleted])
      .when({ type: 'UpdateManager', ...details, now })
      .thenRefuses('NOT_FOUND');
    spec.given([created, deleted]).when({ type: 'DeleteManager', now }).thenRefuses('NOT_FOUND');
  });
});

describe('manager links decider', () => {
  const spec = deciderSpec(linksDecider);

  it('links a user to a manager, and a repeat changes nothing', () => {
    spec
      .given([])
      .when({ type: 'LinkUser', managerId: 3, userId: 7, now })
      .then([linked(3, 7)]);
    spec
      .given([linked(3, 7)])
      .when({ type: 'LinkUser', managerId: 3, userId: 7, now })
      .then([]);
  });

  it('refuses a user already linked to another manager', () => {
    spec
      .given([linked(3, 7)])
      .when({ type: 'LinkUser', managerId: 4, userId: 7, now })
      .thenRefuses('CONFLICT', USER_ALREADY_LINKED);
  });

  it('moves a linked manager to another user in one step', () => {
    spec
      .given([linked(3, 7)])
      .when({ type: 'LinkUser', managerId: 3, userId: 8, now })
      .then([unlinked(3, 7), linked(3, 8)]);
  });

  it('frees the user on unlink, so another manager may link them', () => {
    spec
      .given([linked(3, 7)])
      .when({ type: 'UnlinkUser', managerId: 3, now })
      .then([unlinked(3, 7)]);
    spec.given([]).when({ type: 'UnlinkUser', managerId: 3, now }).then([]);
    spec
      .given([linked(3, 7), unlinked(3, 7)])
      .when({ type: 'LinkUser', managerId: 4, userId: 7, now })
      .then([linked(4, 7)]);
  });
});

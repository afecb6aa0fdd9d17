import { describe, it } from 'vitest';
import type { UserEvent } from '../../schema/users/events.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { adminRosterDecider } from './admin-roster-decider.js';

const spec = deciderSpec(adminRosterDecider);
const now = '2026-01-02T03:04:05.000Z';
const admitted = (userId: number, userVersion = 1): UserEvent => ({
  type: 'AdminRosterAdmitted',
  data: { userId, userVersion, at: now },
});
const approve = (userId: number, userVersion = 1) => ({
  type: 'ApproveAdminRemoval' as const,
  userId,
  userVersion,
  change: 'deactivate' as const,
  actorId: 99,
  userCommandId: `c-${userId}`,
  now,
});
const approved = (userId: number, userVersion = 1): UserEvent => ({
  type: 'AdminRemovalApproved',
  data: { userId, userVersion, change: 'deactivate', actorId: 99, userCommandId: `c-${userId}`, at: now },
});

describe('admin roster decider', () => {
  it('admits an active ADMIN once, from what its stream shows', () => {
    spec
      .given([])
      .when({ type: 'ObserveAdmin', userId: 1, userVersion: 1, activeAdmin: true, now })
      .then([admitted(1)]);
    spec
      .given([admitted(1)])
      .when({ type: 'ObserveAdmin', userId: 1, userVersion: 3, activeAdmin: true, now })
      .then([]);
  });

  it('approves removing an admin while another remains, and refuses removing the last one', () => {
    spec
      .given([admitted(1), admitted(2)])
      .when(approve(2))
      .then([approved(2)]);
    spec
      .given([admitted(1), admitted(2), approved(2)])
      .when(approve(1))
      .thenRefuses('CONFLICT', 'last active administrator');
  });

  it('never re-admits on news older than an approved removal', () => {
    // The observation judged version 1, the removal was approved at 1: stale, ignored.
    spec
      .given([admitted(1), admitted(2), approved(2)])
      .when({ type: 'ObserveAdmin', userId: 2, userVersion: 1, activeAdmin: true, now })
      .then([]);
    // Re-promoted later (version 3): admitted again.
    spec
      .given([admitted(1), admitted(2), approved(2)])
      .when({ type: 'ObserveAdmin', userId: 2, userVersion: 3, activeAdmin: true, now })
      .then([admitted(2, 3)]);
  });

  it('fences an admin it does not count yet, and refuses a removal judged on older news', () => {
    spec
      .given([admitted(1)])
      .when(approve(5, 4))
      .then([approved(5, 4)]);
    spec
      .given([admitted(1), admitted(5, 4)])
      .when(approve(5, 3))
      .thenRefuses('CONFLICT', 'changed concurrently');
  });
});

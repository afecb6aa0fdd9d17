import { describe, expect, it } from 'vitest';
import type { ApprovalPolicyEvent } from '../../schema/approvals/events.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import {
  type ApprovalPolicy,
  approvalPolicyDecider,
  DEFAULT_POLICY,
  segregationBlock,
} from './policy-decider.js';

/** A company that turned segregation of duties off. */
const OFF: ApprovalPolicy = {
  creatorMayNotApprove: false,
  secondApprovalThreshold: null,
  assignedStaffOnly: true,
};
const now = '2026-11-25T10:00:00.000Z';

describe('segregationBlock (the rule the reads explain)', () => {
  const both = { creatorMayNotApprove: true, secondApprovalThreshold: 500 };
  it('names the creator and the first approver, and nobody when the policy is off', () => {
    expect(segregationBlock({ createdBy: 7, firstApprovedBy: null }, both, 7)).toBe('CREATOR');
    expect(segregationBlock({ createdBy: 7, firstApprovedBy: 8 }, both, 8)).toBe('FIRST_APPROVER');
    expect(segregationBlock({ createdBy: 7, firstApprovedBy: 8 }, both, 9)).toBeNull();
    expect(segregationBlock({ createdBy: 7, firstApprovedBy: 8 }, OFF, 7)).toBeNull();
    expect(segregationBlock({ createdBy: 7, firstApprovedBy: 8 }, OFF, 8)).toBeNull();
    expect(
      segregationBlock(
        { createdBy: 7, firstApprovedBy: 8 },
        { creatorMayNotApprove: false, secondApprovalThreshold: 500 },
        7,
      ),
    ).toBeNull();
  });
});

describe('approval policy', () => {
  const spec = deciderSpec(approvalPolicyDecider);
  const set = (p: ApprovalPolicy) => ({
    type: 'SetApprovalPolicy' as const,
    companyId: 2,
    byUserId: 1,
    now,
    ...p,
  });
  const event = (p: ApprovalPolicy): ApprovalPolicyEvent => ({
    type: 'ApprovalPolicySet',
    data: { companyId: 2, byUserId: 1, at: now, ...p },
  });

  it('keeps the creator from approving by default; turning it off is on record', () => {
    expect(approvalPolicyDecider.initialState()).toEqual({
      creatorMayNotApprove: true,
      secondApprovalThreshold: null,
      assignedStaffOnly: true,
    });
    spec
      .given([])
      .when(set(OFF))
      .then([event(OFF)]);
    spec.given([]).when(set(DEFAULT_POLICY)).then([]);
  });

  it('records a change, and nothing when unchanged', () => {
    const on = { creatorMayNotApprove: true, secondApprovalThreshold: 5000, assignedStaffOnly: false };
    spec
      .given([])
      .when(set(on))
      .then([event(on)]);
    spec
      .given([event(on)])
      .when(set(on))
      .then([]);
    spec
      .given([event(OFF)])
      .when(set(OFF))
      .then([]);
  });

  it('reads a policy set before the staff scope existed as assigned staff only', () => {
    const older: ApprovalPolicyEvent = {
      type: 'ApprovalPolicySet',
      data: { companyId: 2, byUserId: 1, at: now, creatorMayNotApprove: false, secondApprovalThreshold: 900 },
    };
    spec
      .given([older])
      .when(set({ creatorMayNotApprove: false, secondApprovalThreshold: 900, assignedStaffOnly: true }))
      .then([]);
  });
});

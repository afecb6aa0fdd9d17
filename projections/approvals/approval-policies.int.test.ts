// Approval policies read model: the last policy of each company wins, a threshold turned off is
// null, and a replay over the rows it wrote changes nothing.
import { describe, expect, it } from 'vitest';
import type { ApprovalPolicyEvent } from '../../schema/approvals/events.js';
import { projectionSpec, storedEvent } from '../../test/support/projection-spec.js';
import { approvalPoliciesProjection } from './approval-policies.js';

const spec = projectionSpec(approvalPoliciesProjection);
const t0 = '2026-11-01T10:00:00.000Z';
const t1 = '2026-11-02T10:00:00.000Z';
const set = (
  companyId: number,
  creatorMayNotApprove: boolean,
  secondApprovalThreshold: number | null,
  at: string,
  assignedStaffOnly?: boolean,
) => {
  const event: ApprovalPolicyEvent = {
    type: 'ApprovalPolicySet',
    data: {
      companyId,
      creatorMayNotApprove,
      secondApprovalThreshold,
      byUserId: 1,
      at,
      ...(assignedStaffOnly === undefined ? {} : { assignedStaffOnly }),
    },
  };
  return storedEvent(event, { streamId: `approvalpolicy-${companyId}`, at });
};

describe('approval policies projection', () => {
  it('keeps each company’s last policy; a replay leaves the same rows', async () => {
    // Company 4's event predates the staff scope (no assignedStaffOnly): assigned staff only.
    const history = [set(3, true, 500, t0), set(4, false, 100.5, t0), set(3, false, null, t1, false)];
    await spec.when(history).then(async ({ read }) => {
      const rows = await read('approval_policies', { orderBy: 'company_id' });
      expect(rows).toEqual([
        {
          company_id: 3,
          creator_may_not_approve: false,
          second_approval_threshold: null,
          assigned_staff_only: false,
          updated_at: new Date(t1),
        },
        {
          company_id: 4,
          creator_may_not_approve: false,
          second_approval_threshold: '100.50',
          assigned_staff_only: true,
          updated_at: new Date(t0),
        },
      ]);
      // The same history again over the rows it wrote.
      await spec.given(history).when(history).thenRows('approval_policies', rows, { orderBy: 'company_id' });
    });
  });
});

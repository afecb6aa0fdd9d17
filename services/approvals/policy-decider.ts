// The company's approval policy as a decider (stream `approvalpolicy-<companyId>`): segregation of duties.
// The creator may not approve by default (a company that never set a policy included); an ADMIN may turn it
// off per company, on record. Pure: times and the acting user come on the command.
import type { ApprovalPolicyEvent } from '../../schema/approvals/events.js';
import type { Decider } from '../shared/decider.js';

export interface ApprovalPolicy {
  /** The approval's creator may not approve it. */
  creatorMayNotApprove: boolean;
  /** Above this approved total a second, different approver must approve; null: one approval is enough. */
  secondApprovalThreshold: number | null;
  /**
   * Only staff assigned to the company (and ADMINs) see and act on its approvals; false opens them to
   * every MODERATOR and USER (services/app/staff-scope.ts).
   */
  assignedStaffOnly: boolean;
}

/** A company that never set a policy: the creator may not approve their own approval. */
export const DEFAULT_POLICY: ApprovalPolicy = {
  creatorMayNotApprove: true,
  secondApprovalThreshold: null,
  assignedStaffOnly: true,
};

/** What the approve rule reads of the policy (the staff scope is judged before, by the use case). */
export type SegregationPolicy = Pick<ApprovalPolicy, 'creatorMayNotApprove' | 'secondApprovalThreshold'>;

/** Why a user may not approve under the policy: they created it, or they gave the first approval. */
export type SegregationBlock = 'CREATOR' | 'FIRST_APPROVER';

/**
 * The one rule the decider enforces and the reads explain to each viewer (so the screen never offers
 * what the server refuses). Once a first approval is recorded, its approver may not complete it while
 * the policy asks for two, whatever subset they pick (else a smaller subset would bypass the second).
 */
export function segregationBlock(
  approval: { createdBy: number | null; firstApprovedBy: number | null },
  policy: SegregationPolicy,
  userId: number,
): SegregationBlock | null {
  if (policy.creatorMayNotApprove && approval.createdBy === userId) return 'CREATOR';
  if (policy.secondApprovalThreshold !== null && approval.firstApprovedBy === userId) return 'FIRST_APPROVER';
  return null;
}

export type PolicyCommand = {
  type: 'SetApprovalPolicy';
  companyId: number;
  byUserId: number;
  now: string;
} & ApprovalPolicy;

export const approvalPolicyDecider = {
  initialState: (): ApprovalPolicy => DEFAULT_POLICY,
  evolve(_state: ApprovalPolicy, event: ApprovalPolicyEvent): ApprovalPolicy {
    const { creatorMayNotApprove, secondApprovalThreshold, assignedStaffOnly } = event.data;
    // Policies set before the staff scope existed kept the default: assigned staff only.
    return { creatorMayNotApprove, secondApprovalThreshold, assignedStaffOnly: assignedStaffOnly ?? true };
  },
  decide(command: PolicyCommand, state: ApprovalPolicy): ApprovalPolicyEvent[] {
    const { companyId, byUserId, now, creatorMayNotApprove, secondApprovalThreshold, assignedStaffOnly } =
      command;
    if (
      state.creatorMayNotApprove === creatorMayNotApprove &&
      state.secondApprovalThreshold === secondApprovalThreshold &&
      state.assignedStaffOnly === assignedStaffOnly
    )
      return [];
    return [
      {
        type: 'ApprovalPolicySet',
        data: {
          companyId,
          creatorMayNotApprove,
          secondApprovalThreshold,
          assignedStaffOnly,
          byUserId,
          at: now,
        },
      },
    ];
  },
  streamId: (companyId: number) => `approvalpolicy-${companyId}`,
} satisfies Decider<ApprovalPolicy, PolicyCommand, ApprovalPolicyEvent>;

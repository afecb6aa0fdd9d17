// Live updates of a company's segregation-of-duties policy: who may approve its approvals (the
// Approve buttons and their reasons) may have changed, so open approval screens read again.
import { graphql } from '../lib/graphql';
import { useLiveChange } from './use-live-change';

export const ApprovalPolicyChanged = graphql(`
  subscription ApprovalPolicyChanged($companyId: Int) {
    approvalPolicyChanged(companyId: $companyId) {
      companyId
    }
  }
`);

/** `companyId` null: any company's policy. */
export function useApprovalPolicyChanged(
  companyId: number | null,
  onChange: (companyId: number) => void,
  options: { pause?: boolean } = {},
) {
  useLiveChange(
    ApprovalPolicyChanged,
    { companyId },
    (d) => d.approvalPolicyChanged,
    (change) => onChange(change.companyId),
    options.pause,
  );
}

// Live updates of a company's segregation-of-duties policy: who may approve its approvals (the
// Approve buttons and their reasons) may have changed, so open approval screens read again.
import { useEffect, useRef } from 'react';
import { useSubscription } from 'urql';
import { graphql } from '../lib/graphql';
import { useResubscribeOnBacklog } from './use-resubscribe-on-backlog';

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
  const [result, resubscribe] = useSubscription({
    query: ApprovalPolicyChanged,
    variables: { companyId },
    pause: options.pause,
  });
  useResubscribeOnBacklog(result.error, resubscribe);
  const latest = useRef(onChange);
  latest.current = onChange;
  const change = result.data?.approvalPolicyChanged;
  useEffect(() => {
    if (change) latest.current(change.companyId);
  }, [change]);
}

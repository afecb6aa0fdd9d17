// Live updates of approvals: the approvalChanged subscription. The list and its stat cards refetch,
// and an open detail reloads, when any session, worker or the expiry job changes an approval.
import { useEffect, useRef } from 'react';
import { useSubscription } from 'urql';
import { graphql } from '../lib/graphql';
import { useResubscribeOnBacklog } from './use-resubscribe-on-backlog';

export const ApprovalsChanged = graphql(`
  subscription ApprovalsChanged($id: String) {
    approvalChanged(id: $id) {
      id
      type
      status
    }
  }
`);

export interface ApprovalChangeNotice {
  id: string;
  type: string;
  status: string | null;
}

export function useApprovalChanged(
  id: string | null,
  onChange: (change: ApprovalChangeNotice) => void,
  options: { pause?: boolean } = {},
) {
  const [result, resubscribe] = useSubscription({
    query: ApprovalsChanged,
    variables: { id },
    pause: options.pause,
  });
  useResubscribeOnBacklog(result.error, resubscribe);
  const latest = useRef(onChange);
  latest.current = onChange;
  const change = result.data?.approvalChanged;
  useEffect(() => {
    if (change) latest.current(change);
  }, [change]);
}

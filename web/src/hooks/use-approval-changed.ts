// Live updates of approvals: the approvalChanged subscription. The list and its stat cards refetch,
// and an open detail reloads, when any session, worker or the expiry job changes an approval.
import { graphql } from '../lib/graphql';
import { useLiveChange } from './use-live-change';

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
  useLiveChange(ApprovalsChanged, { id }, (d) => d.approvalChanged, onChange, options.pause);
}

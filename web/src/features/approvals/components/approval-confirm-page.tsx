import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function ApprovalConfirmPage() {
  return <PagePlaceholder title="Confirm Approval" />;
}

import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function ApprovalDetailPage() {
  return <PagePlaceholder title="Approval Details" />;
}

import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function ApprovalsPage() {
  return <PagePlaceholder title="Bill Approvals" />;
}

import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function ApprovalActionResultPage() {
  return <PagePlaceholder title="Action Result" />;
}

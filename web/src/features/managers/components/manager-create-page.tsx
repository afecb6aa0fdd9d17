import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function ManagerCreatePage() {
  return <PagePlaceholder title="Create Manager" />;
}

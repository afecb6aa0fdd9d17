import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function ManagerEditPage() {
  return <PagePlaceholder title="Edit Manager" />;
}

import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function ManagersPage() {
  return <PagePlaceholder title="Managers" />;
}

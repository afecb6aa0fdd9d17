import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function ManagerDetailPage() {
  return <PagePlaceholder title="Manager Details" />;
}

import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function UserDetailPage() {
  return <PagePlaceholder title="User Details" />;
}

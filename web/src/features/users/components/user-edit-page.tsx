import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function UserEditPage() {
  return <PagePlaceholder title="Edit User" />;
}

import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function UsersPage() {
  return <PagePlaceholder title="Users" description="Manage users, their roles and access" />;
}

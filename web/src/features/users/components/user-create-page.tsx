import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function UserCreatePage() {
  return <PagePlaceholder title="Create User" />;
}

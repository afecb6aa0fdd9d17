import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function CompanyCreatePage() {
  return <PagePlaceholder title="Create Company" />;
}

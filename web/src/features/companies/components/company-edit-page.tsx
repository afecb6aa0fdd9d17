import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function CompanyEditPage() {
  return <PagePlaceholder title="Edit Company" />;
}

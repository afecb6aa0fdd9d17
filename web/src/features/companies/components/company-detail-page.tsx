import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function CompanyDetailPage() {
  return <PagePlaceholder title="Company Details" />;
}

import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function CompanyNachaPage() {
  return <PagePlaceholder title="NACHA Configuration" />;
}

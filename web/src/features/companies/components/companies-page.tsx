import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function CompaniesPage() {
  return <PagePlaceholder title="Companies" description="Manage company accounts and settings" />;
}

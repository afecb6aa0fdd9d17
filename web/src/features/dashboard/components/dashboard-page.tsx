import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function DashboardPage() {
  return (
    <PagePlaceholder title="Dashboard" description="Welcome back. Here is an overview of your system." />
  );
}

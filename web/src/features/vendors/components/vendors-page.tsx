import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function VendorsPage() {
  return <PagePlaceholder title="Vendors" />;
}

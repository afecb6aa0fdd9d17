import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function VendorDetailPage() {
  return <PagePlaceholder title="Vendor Details" />;
}

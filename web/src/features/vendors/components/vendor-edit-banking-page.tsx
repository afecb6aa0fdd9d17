import { PagePlaceholder } from '../../../components/layout/page-placeholder';

export function VendorEditBankingPage() {
  return <PagePlaceholder title="Edit Banking Information" />;
}

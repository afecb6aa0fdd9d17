// The company's status badge (ACTIVE green, INACTIVE gray, SUSPENDED red) and its QB Status badge.
import { Badge } from '../../../components/ui/badge';
import type { Company, CompanyStatus } from '../api/companies';
import { qbStatusLabel } from '../utils/company-rules';

const STATUS_STYLE: Record<CompanyStatus, string> = {
  ACTIVE: 'border-transparent bg-green-100 text-green-800',
  INACTIVE: 'border-transparent bg-gray-100 text-gray-800',
  SUSPENDED: 'border-transparent bg-red-100 text-red-800',
};

export function CompanyStatusBadge({ status }: { status: CompanyStatus }) {
  return <Badge className={STATUS_STYLE[status]}>{status}</Badge>;
}

const QB_STYLE: Record<string, string> = {
  Connected: 'border-transparent bg-green-100 text-green-800',
  Disconnected: 'border-transparent bg-amber-100 text-amber-900',
  Error: 'border-transparent bg-red-100 text-red-800',
  'Not Connected': 'border-transparent bg-gray-100 text-gray-800',
};

export function QbStatusBadge({ company }: { company: Pick<Company, 'qbRealmId' | 'qbConnectionStatus'> }) {
  const label = qbStatusLabel(company);
  return <Badge className={QB_STYLE[label]}>{label}</Badge>;
}

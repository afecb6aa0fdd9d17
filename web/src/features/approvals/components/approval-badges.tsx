import { Badge } from '../../../components/ui/badge';
import { cn } from '../../../lib/utils';
import { titleCase } from '../utils/approval-rules';

// Dark text on light fills: every pair is above 4.5:1.
const STATUS_CLASSES: Record<string, string> = {
  PENDING: 'bg-amber-100 text-amber-900',
  APPROVED: 'bg-green-100 text-green-900',
  REJECTED: 'bg-red-100 text-red-900',
  EXPIRED: 'bg-gray-200 text-gray-900',
  NACHA_PENDING: 'bg-yellow-100 text-yellow-900',
  NACHA_GENERATED: 'bg-sky-100 text-sky-900',
  BANK_UPLOADED: 'bg-indigo-100 text-indigo-900',
  PAYMENT_COMPLETED: 'bg-emerald-100 text-emerald-900',
};
const PRIORITY_CLASSES: Record<string, string> = {
  URGENT: 'bg-red-100 text-red-900',
  HIGH: 'bg-orange-100 text-orange-900',
  MEDIUM: 'bg-blue-100 text-blue-900',
  LOW: 'bg-gray-200 text-gray-900',
};

export function ApprovalStatusBadge({ status }: { status: string }) {
  return (
    <Badge className={cn('border-transparent', STATUS_CLASSES[status] ?? 'bg-indigo-100 text-indigo-900')}>
      {titleCase(status)}
    </Badge>
  );
}

export function PriorityBadge({ priority }: { priority: string }) {
  return (
    <Badge className={cn('border-transparent', PRIORITY_CLASSES[priority] ?? 'bg-gray-200 text-gray-900')}>
      {titleCase(priority)}
    </Badge>
  );
}

const BANK_WORDS: Record<string, string> = { RETURNED: 'Returned', PARTLY_RETURNED: 'Partly returned' };

/** What the bank did after the file, beside the status: every vendor's entry came back, or some. */
export function BankPaymentBadge({ state }: { state: string | null | undefined }) {
  if (!state) return null;
  return (
    <Badge className="border-transparent bg-red-100 text-red-900" data-testid="bank-payment-state">
      {BANK_WORDS[state] ?? titleCase(state)}
    </Badge>
  );
}

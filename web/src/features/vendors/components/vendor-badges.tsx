import { Ban } from 'lucide-react';
import { Badge } from '../../../components/ui/badge';
import { formatDateTime } from '../utils/vendor-rules';

/** Whether the vendor can be paid by ACH. */
export function BankingBadge({ ready }: { ready: boolean }) {
  return ready ? (
    <Badge className="border-transparent bg-green-700 text-white">Ready for ACH</Badge>
  ) : (
    <Badge variant="destructive">Missing Banking Info</Badge>
  );
}

/**
 * The bank returned a payment to this vendor: no file pays it until a changed account goes live.
 * Red wherever the vendor shows; `compact` for a list row (the words, without the since).
 */
export function BankingBlockNotice({
  block,
  compact = false,
}: {
  block: { message: string; since: string } | null | undefined;
  compact?: boolean;
}) {
  if (!block) return null;
  return (
    <div
      role="alert"
      className={`flex items-start gap-2 rounded-md border border-destructive/50 bg-destructive/10 text-destructive ${
        compact ? 'mt-1 max-w-72 px-2 py-1 text-xs' : 'px-3 py-2 text-sm'
      }`}
    >
      <Ban className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <span>
        {block.message}
        {compact ? null : (
          <span className="block text-xs">
            Since {formatDateTime(block.since)}: no NACHA file pays this vendor.
          </span>
        )}
      </span>
    </div>
  );
}

export function VendorStatusBadge({ active }: { active: boolean }) {
  return active ? <Badge variant="secondary">Active</Badge> : <Badge variant="outline">Inactive</Badge>;
}

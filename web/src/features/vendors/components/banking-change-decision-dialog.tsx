// Approving or rejecting a held bank detail change: always with a reason, which goes on the vendor's
// history. The server has the last word (a maker approving their own change, a frozen change, a
// company outside the caller's scope): its message shows as the error toast and the dialog stays open.
import { useEffect, useState } from 'react';
import { Button } from '../../../components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '../../../components/ui/dialog';
import { Label } from '../../../components/ui/label';
import { toast } from '../../../components/ui/use-toast';
import { useGqlMutation } from '../../../lib/use-graphql';
import {
  ApproveVendorBankingChange,
  type BankingChange,
  RejectVendorBankingChange,
  VENDOR_MESSAGES,
} from '../api/vendors';

export type BankingDecision = 'approve' | 'reject';

const TEXT = {
  approve: {
    title: 'Approve Bank Details Change',
    action: 'Approve Change',
    busy: 'Approving…',
    failed: 'Failed to approve the change',
    done: VENDOR_MESSAGES.changeApproved,
  },
  reject: {
    title: 'Reject Bank Details Change',
    action: 'Reject Change',
    busy: 'Rejecting…',
    failed: 'Failed to reject the change',
    done: VENDOR_MESSAGES.changeRejected,
  },
} as const;

export function BankingChangeDecisionDialog({
  vendor,
  change,
  decision,
  onOpenChange,
}: {
  vendor: { id: number; name: string };
  change: Pick<BankingChange, 'changeId' | 'accountNumber' | 'previousAccountNumber'>;
  /** The dialog is open while a decision is chosen. */
  decision: BankingDecision | null;
  onOpenChange: (open: boolean) => void;
}) {
  const approve = useGqlMutation(ApproveVendorBankingChange, TEXT.approve.failed);
  const reject = useGqlMutation(RejectVendorBankingChange, TEXT.reject.failed);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const open = decision !== null;
  useEffect(() => {
    if (open) setReason('');
  }, [open]);
  const text = TEXT[decision ?? 'approve'];

  async function submit() {
    if (!decision) return;
    if (!reason.trim()) {
      toast.error('Give a reason: it is kept on the vendor’s history', 'Reason required');
      return;
    }
    setBusy(true);
    try {
      const run = decision === 'approve' ? approve : reject;
      // The vendor, its changes and its history are re-read through the cache.
      await run({ id: vendor.id, changeId: change.changeId, reason: reason.trim() });
      toast.success(text.done);
      onOpenChange(false);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : text.failed, text.failed);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={(o) => !busy && onOpenChange(o)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{text.title}</DialogTitle>
          <DialogDescription>
            {decision === 'reject'
              ? `The new account (${change.accountNumber ?? 'masked'}) is refused; ${vendor.name} keeps the bank details it has. The reason is kept on the vendor’s history.`
              : `Payments to ${vendor.name} will go to the new account (${change.accountNumber ?? 'masked'}) instead of ${change.previousAccountNumber ?? 'none'}. Approve only if you checked it with the vendor through a contact you already knew. The reason is kept on the vendor’s history.`}
          </DialogDescription>
        </DialogHeader>
        <form
          className="grid gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <Label htmlFor="banking-decision-reason">Reason *</Label>
          <textarea
            id="banking-decision-reason"
            rows={3}
            required
            maxLength={500}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            className="w-full rounded-md border border-input bg-transparent px-3 py-2 text-sm shadow-xs outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50"
          />
          <DialogFooter className="mt-2">
            <Button type="button" variant="outline" onClick={() => onOpenChange(false)} disabled={busy}>
              Cancel
            </Button>
            <Button
              type="submit"
              variant={decision === 'reject' ? 'destructive' : 'default'}
              disabled={busy || reason.length === 0}
            >
              {busy ? text.busy : text.action}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

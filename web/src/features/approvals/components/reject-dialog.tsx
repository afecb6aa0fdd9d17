// 'Reject Approval': a required reason (4 rows), submit disabled while empty; a
// blank reason (spaces) on submit says so in a toast. Also the bulk reject's one reason.
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

export function RejectDialog({
  open,
  onOpenChange,
  onSubmit,
  title = 'Reject Approval',
  description = 'The approval is closed and its bills are free again. The reason is kept on its history.',
  submitLabel = 'Reject Approval',
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Resolves when done; the dialog stays open when it throws. */
  onSubmit: (reason: string) => Promise<void>;
  title?: string;
  description?: string;
  submitLabel?: string;
}) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (open) setReason('');
  }, [open]);

  async function submit() {
    if (!reason.trim()) {
      toast({
        variant: 'destructive',
        title: 'Rejection reason required',
        description: 'Please provide a reason for rejection',
      });
      return;
    }
    setBusy(true);
    try {
      await onSubmit(reason.trim());
      onOpenChange(false);
    } catch {
      // The caller said why in a toast.
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={(o) => !busy && onOpenChange(o)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{title}</DialogTitle>
          <DialogDescription>{description}</DialogDescription>
        </DialogHeader>
        <form
          className="grid gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <Label htmlFor="rejection-reason">Rejection Reason *</Label>
          <textarea
            id="rejection-reason"
            rows={4}
            required
            maxLength={1000}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            className="w-full rounded-md border border-input bg-transparent px-3 py-2 text-sm shadow-xs outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50"
          />
          <DialogFooter className="mt-2">
            <Button variant="outline" onClick={() => onOpenChange(false)} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" variant="destructive" disabled={busy || reason.length === 0}>
              {busy ? 'Rejecting…' : submitLabel}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

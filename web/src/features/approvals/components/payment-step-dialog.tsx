// The reason staff give when a payment step's e-mail link cannot serve: "Send link again" and
// "Confirm in app" each open this dialog. The server keeps the reason on the approval's history and
// holds it to 3–500 characters; submit waits until the reason is long enough, and the dialog stays
// open when the server refuses (the caller's toast says why).
import { useEffect, useId, useState } from 'react';
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

export const STEP_REASON_MIN = 3;
export const STEP_REASON_MAX = 500;

export function PaymentStepDialog({
  open,
  onOpenChange,
  onSubmit,
  title,
  description,
  submitLabel,
  busyLabel,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Resolves when done; the dialog stays open when it throws. */
  onSubmit: (reason: string) => Promise<void>;
  title: string;
  description: string;
  submitLabel: string;
  busyLabel: string;
}) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const id = useId();
  useEffect(() => {
    if (open) setReason('');
  }, [open]);
  const trimmed = reason.trim();
  const fits = trimmed.length >= STEP_REASON_MIN && trimmed.length <= STEP_REASON_MAX;

  async function submit() {
    if (!fits) return;
    setBusy(true);
    try {
      await onSubmit(trimmed);
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
          <Label htmlFor={`${id}-reason`}>Reason *</Label>
          <textarea
            id={`${id}-reason`}
            rows={3}
            required
            maxLength={STEP_REASON_MAX}
            aria-describedby={`${id}-hint`}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            className="w-full rounded-md border border-input bg-transparent px-3 py-2 text-sm shadow-xs outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50"
          />
          <p id={`${id}-hint`} className="text-xs text-muted-foreground">
            {STEP_REASON_MIN}–{STEP_REASON_MAX} characters; kept in the approval’s history.
          </p>
          <DialogFooter className="mt-2">
            <Button variant="outline" onClick={() => onOpenChange(false)} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" disabled={busy || !fits}>
              {busy ? busyLabel : submitLabel}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}

// 'Dismiss' a parked event (ADMIN): asks for the reason, which is required and kept on record with
// who dismissed it and when. A reason of only spaces or invisible characters is blank, as the server
// counts it.
import { Archive } from 'lucide-react';
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
import { FieldError } from '../../../components/ui/text-field';
import { toast } from '../../../components/ui/use-toast';
import { errorMessageOf } from '../../../lib/errors';
import { useOperationsActions } from '../api/operations';

export const DISMISS_REASON_REQUIRED = 'Please give a reason for dismissing the event';
const REASON_MAX = 500;
const blank = (v: string) => v.replace(/[\s\p{Cf}]/gu, '') === '';

export function DismissParkedButton({
  consumer,
  eventId,
  eventType,
  onDone,
}: {
  consumer: string;
  eventId: string;
  eventType: string;
  onDone: () => void;
}) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const { dismissParkedEvent } = useOperationsActions();
  useEffect(() => {
    if (open) {
      setReason('');
      setError(undefined);
    }
  }, [open]);

  async function submit() {
    if (blank(reason)) {
      setError(DISMISS_REASON_REQUIRED);
      return;
    }
    setBusy(true);
    try {
      const message = await dismissParkedEvent(consumer, eventId, reason.trim());
      toast({ title: 'Event dismissed', description: message, variant: 'success' });
      setOpen(false);
      onDone();
    } catch (err) {
      toast({ title: 'Dismiss failed', description: errorMessageOf(err), variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  }

  const id = `dismiss-reason-${eventId}`;
  return (
    <>
      <Button
        variant="outline"
        size="sm"
        aria-label={`Dismiss ${eventType} in ${consumer}`}
        onClick={() => setOpen(true)}
      >
        <Archive aria-hidden="true" />
        Dismiss
      </Button>
      <Dialog open={open} onOpenChange={(o) => !busy && setOpen(o)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Dismiss parked event</DialogTitle>
            <DialogDescription>
              {eventType} in {consumer} is set aside for good: it is no longer counted as parked and is not
              retried. It stays listed with your name, the time and this reason.
            </DialogDescription>
          </DialogHeader>
          <form
            className="grid gap-2"
            // Our own check and message (blank counts invisible characters too), not the browser's.
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              void submit();
            }}
          >
            <Label htmlFor={id}>Reason *</Label>
            <textarea
              id={id}
              rows={3}
              required
              maxLength={REASON_MAX}
              value={reason}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${id}-error` : undefined}
              onChange={(e) => {
                setReason(e.target.value);
                setError(undefined);
              }}
              className="w-full rounded-md border border-input bg-transparent px-3 py-2 text-sm shadow-xs outline-none focus-visible:border-ring focus-visible:ring-[3px] focus-visible:ring-ring/50 aria-invalid:border-destructive"
            />
            <FieldError id={`${id}-error`} message={error} />
            <DialogFooter className="mt-2">
              <Button type="button" variant="outline" onClick={() => setOpen(false)} disabled={busy}>
                Cancel
              </Button>
              <Button type="submit" variant="destructive" disabled={busy}>
                {busy ? 'Dismissing…' : 'Dismiss event'}
              </Button>
            </DialogFooter>
          </form>
        </DialogContent>
      </Dialog>
    </>
  );
}

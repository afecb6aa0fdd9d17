// Approve with the approved subset of the approval's bills (at least one), and optionally the payment
// file's effective entry date (empty: the next banking day; the server refuses a day it cannot pay on).
import { useEffect, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Checkbox } from '../../../components/ui/checkbox';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '../../../components/ui/dialog';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { formatCurrency } from '../../../lib/utils';
import type { ApprovalBill } from '../api/approvals';
import { earliestEffectiveDate } from '../utils/effective-date';

export function ApproveDialog({
  open,
  onOpenChange,
  bills,
  onSubmit,
  note,
  sameDayAch = false,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  bills: readonly Pick<ApprovalBill, 'id' | 'totalAmt' | 'vendorName' | 'docNumber'>[];
  /** The payment file's effective date, 'YYYY-MM-DD', when one is chosen; undefined: the default. */
  onSubmit: (approvedBills: string[], effectiveDate?: string) => Promise<void>;
  note?: string | null;
  /** The company sends Same-Day ACH: today may be chosen. */
  sameDayAch?: boolean;
}) {
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [effectiveDate, setEffectiveDate] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (open) {
      setChosen(new Set(bills.map((b) => b.id)));
      setEffectiveDate('');
    }
  }, [open, bills]);

  const total = bills.filter((b) => chosen.has(b.id)).reduce((sum, b) => sum + b.totalAmt, 0);
  async function submit() {
    setBusy(true);
    try {
      await onSubmit(
        bills.filter((b) => chosen.has(b.id)).map((b) => b.id),
        effectiveDate || undefined,
      );
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
          <DialogTitle>Approve Bills</DialogTitle>
          <DialogDescription>
            Choose the bills to approve (at least one). Bills left out are free for another approval.
          </DialogDescription>
        </DialogHeader>
        {note ? (
          <p
            role="note"
            className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900"
          >
            {note}
          </p>
        ) : null}
        <fieldset className="grid max-h-72 gap-2 overflow-y-auto">
          <legend className="sr-only">Bills to approve</legend>
          {bills.map((b) => {
            const label = `${b.vendorName ?? 'Unknown Vendor'} · ${b.docNumber ?? 'N/A'} · ${formatCurrency(b.totalAmt)}`;
            return (
              <label
                key={b.id}
                htmlFor={`approve-bill-${b.id}`}
                className="flex items-center gap-3 rounded-md border p-2 text-sm"
              >
                <Checkbox
                  id={`approve-bill-${b.id}`}
                  checked={chosen.has(b.id)}
                  aria-label={`Approve bill ${b.id}`}
                  onChange={(e) =>
                    setChosen((s) => {
                      const next = new Set(s);
                      if (e.target.checked) next.add(b.id);
                      else next.delete(b.id);
                      return next;
                    })
                  }
                />
                <span>{label}</span>
              </label>
            );
          })}
        </fieldset>
        <div className="grid gap-1">
          <Label htmlFor="approve-effective-date">Effective date (optional)</Label>
          <Input
            id="approve-effective-date"
            type="date"
            value={effectiveDate}
            min={earliestEffectiveDate(sameDayAch)}
            onChange={(e) => setEffectiveDate(e.target.value)}
            aria-describedby="approve-effective-date-hint"
          />
          <p id="approve-effective-date-hint" className="text-xs text-muted-foreground">
            The day the vendors are paid: a banking day. Empty: the next banking day
            {sameDayAch ? ' (today, same-day, before 2:45 PM New York)' : ''}.
          </p>
        </div>
        <p className="text-sm">
          {chosen.size} of {bills.length} bills · <span className="font-medium">{formatCurrency(total)}</span>
        </p>
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)} disabled={busy}>
            Cancel
          </Button>
          <Button onClick={submit} disabled={busy || chosen.size === 0}>
            {busy ? 'Approving…' : `Approve ${chosen.size} ${chosen.size === 1 ? 'bill' : 'bills'}`}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

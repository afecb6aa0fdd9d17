// An approved approval's vendors whose file would not pay them as approved: the bank details the
// approver was shown beside the live ones (masked), and why each is held out of the file (the
// server's words: "bank details changed after approval: approve again", a change pending or frozen).
// When the API offers it, staff approve the changed details again, after seeing the new tails; the
// next file (Regenerate) then pays them.
import { Check, ShieldAlert } from 'lucide-react';
import { useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '../../../components/ui/dialog';
import { toast } from '../../../components/ui/use-toast';
import { useGqlMutation } from '../../../lib/use-graphql';
import type { Approval } from '../api/approvals';
import { ApproveBankingAgain } from '../api/payments';
import { heldOut, REVIEW_LABELS } from '../utils/banking-rules';

type Review = NonNullable<Approval['bankingReview']>[number];

const masked = (routing: string | null, account: string | null) =>
  routing || account ? `routing ${routing ?? 'none'}, account ${account ?? 'none'}` : 'no bank details';

const name = (r: Review) => r.vendorName ?? `QuickBooks vendor ${r.qbVendorId}`;

export function BankingReviewCard({
  approval,
  staff,
}: {
  approval: Pick<Approval, 'id' | 'bankingReview' | 'bankingToApproveAgain'>;
  /** ADMIN or MODERATOR on a live view: may approve again (the server judges it again). */
  staff: boolean;
}) {
  const approveAgain = useGqlMutation(ApproveBankingAgain, 'Failed to approve the bank details again');
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const rows = (approval.bankingReview ?? []).filter((r) => heldOut(r.state));
  if (rows.length === 0) return null;
  const changed = rows.filter((r) => r.state === 'CHANGED');
  const mayApproveAgain = staff && approval.bankingToApproveAgain === true && changed.length > 0;

  async function confirm() {
    setBusy(true);
    try {
      const answer = await approveAgain({ id: approval.id });
      toast.success('Approved again', answer.approveBankingAgain.message);
      setOpen(false);
    } catch (err) {
      toast.error(
        err instanceof Error && err.message ? err.message : 'An error occurred',
        'Failed to approve the bank details again',
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card className="border-amber-300" data-testid="banking-review">
      <CardHeader>
        <CardTitle as="h2" className="flex items-center gap-2">
          <ShieldAlert aria-hidden="true" className="size-4" />
          Bank Details Held Out of the File
        </CardTitle>
        <CardDescription>
          A file pays a vendor only at the bank details its approver was shown. These vendors’ bills wait.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3 text-sm">
        <ul className="grid gap-3">
          {rows.map((r) => (
            <li
              key={r.qbVendorId}
              data-testid={`banking-review-${r.qbVendorId}`}
              className="grid gap-1 rounded-md border px-3 py-2"
            >
              <span className="flex flex-wrap items-center gap-2">
                <span className="font-medium">{name(r)}</span>
                <Badge className="border-transparent bg-amber-100 text-amber-900">
                  {REVIEW_LABELS[r.state]}
                </Badge>
              </span>
              <span className="font-mono text-xs">
                Approved: {masked(r.approvedRoutingNumber, r.approvedAccountNumber)}
              </span>
              <span className="font-mono text-xs">
                Now: {masked(r.liveRoutingNumber, r.liveAccountNumber)}
              </span>
              {r.message ? <span className="[overflow-wrap:anywhere]">{r.message}</span> : null}
            </li>
          ))}
        </ul>
        {mayApproveAgain ? (
          <Button className="w-fit" size="sm" onClick={() => setOpen(true)}>
            <Check aria-hidden="true" />
            Approve Again
          </Button>
        ) : null}
      </CardContent>
      <Dialog open={open} onOpenChange={(o) => !busy && setOpen(o)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Approve Bank Details Again</DialogTitle>
            <DialogDescription>
              The next file pays these vendors at their bank details as they are now. Approve only if the
              change itself was checked.
            </DialogDescription>
          </DialogHeader>
          <ul className="grid gap-1 text-sm" data-testid="approve-again-vendors">
            {changed.map((r) => (
              <li key={r.qbVendorId}>
                <span className="font-medium">{name(r)}</span>:{' '}
                <span className="font-mono text-xs">
                  {masked(r.liveRoutingNumber, r.liveAccountNumber)} (was{' '}
                  {masked(r.approvedRoutingNumber, r.approvedAccountNumber)})
                </span>
              </li>
            ))}
          </ul>
          <DialogFooter>
            <Button variant="outline" onClick={() => setOpen(false)} disabled={busy}>
              Cancel
            </Button>
            <Button onClick={confirm} disabled={busy}>
              {busy ? 'Approving…' : 'Approve Again'}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </Card>
  );
}

// A held change of the vendor's bank details, said plainly where the live ones are shown: the last
// four digits before and after, where it came from, who made it and when, and who must act. Approve
// and Reject for the roles that decide; the maker is not offered Approve (the server refuses it too).
// Beside them, whether the vendor's contact was told, and the micro-deposit check.
import { Check, ShieldAlert, X } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../../../components/ui/button';
import { useSession } from '../../../lib/auth';
import type { BankingChange } from '../api/vendors';
import { beforeOrNone, changeActions, changeStatusLabel, sourceLabel } from '../utils/banking-change-rules';
import { accountTypeLabel, formatDateTime } from '../utils/vendor-rules';
import { BankingChangeDecisionDialog, type BankingDecision } from './banking-change-decision-dialog';
import { MicroDepositsPanel } from './micro-deposits-panel';

export function PendingBankingChange({
  vendor,
  change,
}: {
  vendor: { id: number; name: string };
  change: BankingChange;
}) {
  const user = useSession().user;
  const actions = changeActions(change, user);
  const [decision, setDecision] = useState<BankingDecision | null>(null);
  const frozen = change.status === 'frozen';
  return (
    <section
      aria-labelledby="pending-banking-change-title"
      data-testid="pending-banking-change"
      className={
        frozen
          ? 'grid gap-3 rounded-md border border-destructive/50 bg-destructive/5 p-4 text-sm'
          : 'grid gap-3 rounded-md border border-amber-500/50 bg-amber-50 p-4 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50'
      }
    >
      <div className="flex items-start gap-2">
        <ShieldAlert className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
        <div className="grid gap-1">
          <h3 id="pending-banking-change-title" className="font-semibold">
            {frozen ? 'Bank details change frozen' : 'Bank details change pending approval'}
          </h3>
          <p>
            {frozen
              ? 'The vendor’s contact said this change was not theirs. Payments keep going to the bank details on file until it is rejected.'
              : 'Payments keep going to the bank details on file until this change is approved.'}
          </p>
        </div>
      </div>
      <dl className="grid gap-x-6 gap-y-2 sm:grid-cols-2">
        <div className="grid gap-0.5">
          <dt className="text-xs opacity-80">Account number</dt>
          <dd className="font-mono" data-testid="pending-account">
            {beforeOrNone(change.previousAccountNumber)} → {change.accountNumber ?? 'masked'}
          </dd>
        </div>
        <div className="grid gap-0.5">
          <dt className="text-xs opacity-80">Routing number</dt>
          <dd className="font-mono" data-testid="pending-routing">
            {beforeOrNone(change.previousRoutingNumber)} → {change.routingNumber ?? 'masked'}
          </dd>
        </div>
        <div className="grid gap-0.5">
          <dt className="text-xs opacity-80">Account type</dt>
          <dd>{accountTypeLabel(change.accountType)}</dd>
        </div>
        <div className="grid gap-0.5">
          <dt className="text-xs opacity-80">Source</dt>
          <dd>{sourceLabel(change.source)}</dd>
        </div>
        <div className="grid gap-0.5">
          <dt className="text-xs opacity-80">Made by</dt>
          <dd>
            {change.requestedByName ?? 'The system'} · {formatDateTime(change.requestedAt)}
          </dd>
        </div>
        <div className="grid gap-0.5">
          <dt className="text-xs opacity-80">Status</dt>
          <dd>{changeStatusLabel(change.status)}</dd>
        </div>
      </dl>
      {change.awaiting ? (
        <p className="font-medium" data-testid="pending-awaiting">
          {change.awaiting}
        </p>
      ) : null}
      <MicroDepositsPanel
        vendor={vendor}
        change={change}
        staff={user?.role === 'ADMIN' || user?.role === 'MODERATOR'}
      />
      {actions.ownChange && change.status === 'pending' ? (
        <p>You made this change, so another ADMIN or MODERATOR must approve it.</p>
      ) : null}
      {actions.approve || actions.reject ? (
        <div className="flex flex-wrap gap-2">
          {actions.approve ? (
            <Button size="sm" onClick={() => setDecision('approve')}>
              <Check aria-hidden="true" />
              Approve Change
            </Button>
          ) : null}
          {actions.reject ? (
            <Button size="sm" variant="outline" onClick={() => setDecision('reject')}>
              <X aria-hidden="true" />
              Reject Change
            </Button>
          ) : null}
        </div>
      ) : null}
      <BankingChangeDecisionDialog
        vendor={vendor}
        change={change}
        decision={decision}
        onOpenChange={(open) => {
          if (!open) setDecision(null);
        }}
      />
    </section>
  );
}

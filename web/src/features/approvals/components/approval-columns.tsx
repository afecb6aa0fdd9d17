// The approvals table's columns: what each shows, from which width, and
// the row's actions, which the page hands in (the page owns the calls and their busy state).
import { Check, X } from 'lucide-react';
import { Link } from 'react-router-dom';
import { Button } from '../../../components/ui/button';
import { type Column, RowMenu } from '../../../components/ui/data-list';
import { DateTimeStack } from '../../../components/ui/date-time-stack';
import { formatCurrency } from '../../../lib/utils';
import type { ApprovalRow } from '../api/approvals';
import {
  managerLabel,
  NACHA_STATUSES,
  percent,
  regenerateBlockedReason,
  shortId,
} from '../utils/approval-rules';
import { ApprovalStatusBadge, BankPaymentBadge, PriorityBadge } from './approval-badges';
import { BankingFlagMarker } from './banking-flags';
import { PaymentProblemMarker } from './payment-problem';

/**
 * Which columns show from which width: a phone (under 640 px) sees ID, status and actions, with the
 * company and the processed amount under each ID; the amount as a column from 640, company and
 * priority from 768 (where the ID stands alone again), created from 1024, the bill counts, the
 * approved amount and the manager from 1280, where all twelve fit beside the sidebar (small headers,
 * narrow padding, names and notes that wrap), none pinned over another.
 */
export const DENSE = [
  '[&_td]:px-1.5 [&_th]:px-1.5 [&_th]:text-xs [&_tr>*:first-child]:pl-3 [&_tr>*:last-child]:pr-3',
  // The sort buttons' own side padding, and the row menu's button as small as approve and reject.
  '[&_th_button]:-ml-0.5 [&_th_button]:px-0.5 [&_td:last-child_button]:size-7',
].join(' ');
const FROM_SM = 'hidden sm:table-cell';
const FROM_MD = 'hidden md:table-cell';
const FROM_LG = 'hidden lg:table-cell';
const FROM_XL = 'hidden xl:table-cell';

/** What a row's buttons and menu do; the page runs the calls. */
export interface ApprovalRowActions {
  /** ADMIN or MODERATOR: approve, reject, delete. */
  staff: boolean;
  busy: (a: ApprovalRow) => boolean;
  approve: (a: ApprovalRow) => void;
  reject: (a: ApprovalRow) => void;
  remove: (a: ApprovalRow) => void;
  /**
   * Regenerate NACHA (staff, APPROVED through PAYMENT_COMPLETED); once the file is at the
   * bank it shows disabled, saying why.
   */
  regenerate: (a: ApprovalRow) => void;
  view: (a: ApprovalRow) => void;
}

const companyLabel = (a: ApprovalRow) => a.companyName ?? `Company ${a.companyId}`;

export function approvalColumns(actions: ApprovalRowActions): Column<ApprovalRow>[] {
  return [
    {
      id: 'id',
      header: 'ID',
      className: 'font-mono text-xs',
      cell: (a) => (
        <div className="grid gap-0.5">
          <Link to={`/approvals/${a.id}`} className="hover:underline">
            {shortId(a.id)}
          </Link>
          {/* Until their own columns show: the company, and the amount. */}
          <span className="font-sans text-sm whitespace-normal md:hidden" data-testid="row-company">
            {companyLabel(a)}
          </span>
          <span className="font-sans text-sm tabular-nums sm:hidden" data-testid="row-amount">
            {formatCurrency(a.totalAmount)}
          </span>
        </div>
      ),
    },
    {
      id: 'company',
      header: 'Company',
      sortKey: 'companyName',
      className: `${FROM_MD} min-w-20 whitespace-normal`,
      cell: companyLabel,
    },
    {
      id: 'processed-bills',
      header: 'Processed Bills',
      sortKey: 'billCount',
      className: FROM_XL,
      cell: (a) => <span data-testid="processed-bills">{a.billCount}</span>,
    },
    {
      id: 'approved-bills',
      header: 'Approved Bills',
      sortKey: 'approvedBillCount',
      className: FROM_XL,
      cell: (a) => (
        <span data-testid="approved-bills">
          {a.approvedBillCount}{' '}
          <span className="text-xs text-muted-foreground">
            ({percent(a.approvedBillCount, a.billCount)}%)
          </span>
        </span>
      ),
    },
    {
      id: 'status',
      header: 'Status',
      sortKey: 'status',
      className: 'whitespace-normal',
      cell: (a) => (
        <div data-testid="status">
          <ApprovalStatusBadge status={a.status} />
          <BankPaymentBadge state={a.bankPaymentState} />
          {a.awaitingSecondApproval ? (
            <span className="mt-1 block text-xs text-muted-foreground">2nd approval due</span>
          ) : null}
          {a.paymentProblem ? <PaymentProblemMarker problem={a.paymentProblem} /> : null}
          <BankingFlagMarker flags={a.bankingFlags} testId={`approval-banking-flag-${a.id}`} />
        </div>
      ),
    },
    {
      id: 'priority',
      header: 'Priority',
      sortKey: 'priority',
      className: FROM_MD,
      cell: (a) => <PriorityBadge priority={a.priority} />,
    },
    {
      id: 'processed-amount',
      header: 'Processed Amount',
      sortKey: 'totalAmount',
      className: `${FROM_SM} tabular-nums`,
      cell: (a) => formatCurrency(a.totalAmount),
    },
    {
      id: 'approved-amount',
      header: 'Approved Amount',
      sortKey: 'approvedAmount',
      className: `${FROM_XL} tabular-nums`,
      cell: (a) => formatCurrency(a.approvedAmount),
    },
    {
      id: 'manager',
      header: 'Manager',
      sortKey: 'managerName',
      className: `${FROM_XL} min-w-20 whitespace-normal`,
      cell: (a) => managerLabel(a.managerName, a.managerEmail),
    },
    {
      id: 'created',
      header: 'Created',
      sortKey: 'createdAt',
      className: `${FROM_LG} text-xs`,
      cell: (a) => <DateTimeStack iso={a.createdAt} empty="N/A" />,
    },
    {
      id: 'actions',
      header: 'Actions',
      className: 'text-right',
      cell: (a) => {
        const pending = a.status === 'PENDING';
        const busy = actions.busy(a);
        return (
          <div className="flex items-center justify-end gap-0.5">
            {actions.staff && pending ? (
              <>
                <Button
                  variant="ghost"
                  size="icon"
                  className="size-7"
                  disabled={busy || !a.viewerMayApprove}
                  aria-label={`Approve approval ${shortId(a.id)}`}
                  title={
                    a.viewerMayApprove
                      ? 'Approve all bills'
                      : (a.approveBlockedReason ?? 'You may not approve this approval')
                  }
                  onClick={() => actions.approve(a)}
                >
                  <Check className="text-green-700" aria-hidden="true" />
                </Button>
                <Button
                  variant="ghost"
                  size="icon"
                  className="size-7"
                  disabled={busy}
                  aria-label={`Reject approval ${shortId(a.id)}`}
                  title="Reject"
                  onClick={() => actions.reject(a)}
                >
                  <X className="text-destructive" aria-hidden="true" />
                </Button>
              </>
            ) : null}
            <RowMenu
              label={`Actions for approval ${shortId(a.id)}`}
              actions={[
                { label: 'View Details', onSelect: () => actions.view(a) },
                actions.staff &&
                  (NACHA_STATUSES as readonly string[]).includes(a.status) && {
                    label: 'Regenerate NACHA',
                    disabled: busy || regenerateBlockedReason(a.status) !== null,
                    reason: regenerateBlockedReason(a.status),
                    onSelect: () => void actions.regenerate(a),
                  },
                actions.staff && {
                  label: 'Delete',
                  destructive: true,
                  onSelect: () => void actions.remove(a),
                },
              ]}
            />
          </div>
        );
      },
    },
  ];
}

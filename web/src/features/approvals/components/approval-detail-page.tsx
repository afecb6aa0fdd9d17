// /approvals/{id}: header with badges and age, Refresh, Edit,
// Approve (a subset of the bills) and Reject (the dialog's rules) for staff on PENDING; the cards of
// the spec; segregation of duties on screen: whether the viewer may approve, and why not, comes from
// the server (the same rule its decider applies). Live: a change of this approval anywhere, or of its
// company's policy, re-reads it and its history through the cache (lib/cache-rules.ts). The payment
// half (NACHA, penny test, QuickBooks payment sync) shows from the approval's payment fields, so a
// status move pushed from anywhere shows without a reload. ADMIN and MODERATOR export the audit bundle
// from the history's card; the history is re-read after, showing the export. What holds the payment
// shows beside the status and in a banner above the cards, with the retry that helps this viewer;
// the stored files download for the roles the server lets download them, and nobody else is offered
// them. Regenerate shows disabled, saying why, once the file is at the bank. A vendor whose bank
// details changed recently or wait for a second look is named in a banner with who changed them and
// who must act; once approved, a vendor its file holds out is named with why, and approved again.
import { ArrowLeft, Check, Pencil, RefreshCw, X } from 'lucide-react';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { LoadingState } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/use-toast';
import { useApprovalChanged } from '../../../hooks/use-approval-changed';
import { ApprovalPolicyChanged } from '../../../hooks/use-approval-policy-changed';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { useLive } from '../../../hooks/use-live';
import { useSession } from '../../../lib/auth';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import { formatCurrency } from '../../../lib/utils';
import {
  type Approval,
  type ApprovalBill,
  ApprovalHistoryQuery,
  ApprovalQuery,
  ApproveApproval,
  RejectApproval,
} from '../api/approvals';
import {
  formatDateTime,
  managerLabel,
  personName,
  regenerateBlockedReason,
  relativeTime,
  shortId,
} from '../utils/approval-rules';
import { mayDownloadFiles, mayRegenerate } from '../utils/payment-rules';
import { ApprovalStatusBadge, BankPaymentBadge, PriorityBadge } from './approval-badges';
import { ApprovalHistoryList } from './approval-history';
import { ApproveDialog } from './approve-dialog';
import { AuditExportButton } from './audit-export-button';
import { BankEntriesCard } from './bank-entries-card';
import { BankingFlagsBanner } from './banking-flags';
import { BankingReviewCard } from './banking-review';
import { BillCard } from './bill-card';
import { EditApprovalDialog } from './edit-approval-dialog';
import { NachaCard, useRegenerateNacha } from './nacha-card';
import { PaymentPrerequisites } from './payment-prerequisites';
import { PaymentProblemBadge, PaymentProblemBanner } from './payment-problem';
import { QbSyncCard } from './qb-sync-card';
import { RejectDialog } from './reject-dialog';
import { type PastView, TimelineScrubber } from './timeline-scrubber';

const NO_BILLS: readonly ApprovalBill[] = [];

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-0.5">
      <dt className="text-sm text-muted-foreground">{label}</dt>
      <dd className="text-sm [overflow-wrap:anywhere]">{children}</dd>
    </div>
  );
}

export function ApprovalDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { user } = useSession();
  useDocumentTitle(`Approval ${shortId(id)}`);
  const staff = user?.role === 'ADMIN' || user?.role === 'MODERATOR';
  const read = useGqlQuery(ApprovalQuery, { id }, { fallback: 'Approval not found' });
  const history = useGqlQuery(ApprovalHistoryQuery, { id }, { fallback: 'Failed to fetch approval history' });
  const approveCall = useGqlMutation(ApproveApproval, 'Failed to approve approval');
  const rejectCall = useGqlMutation(RejectApproval, 'Failed to reject approval');
  const [approveOpen, setApproveOpen] = useState(false);
  const [rejectOpen, setRejectOpen] = useState(false);
  const [editOpen, setEditOpen] = useState(false);
  const [regenerating, setRegenerating] = useState(false);
  // A past step chosen on the timeline (ADMIN, MODERATOR): the cards show it, and no action is offered.
  const [past, setPast] = useState<PastView | null>(null);
  const runRegenerate = useRegenerateNacha();
  // Deleted elsewhere while open: the page says so and offers no action.
  const [deleted, setDeleted] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: another approval starts undeleted
  useEffect(() => setDeleted(false), [id]);

  // Once deleted the re-read fails: the page keeps what it last showed, with the notice. (While
  // another id loads, the answer on hand may still be the previous approval's: not shown.)
  const last = useRef<Approval | null>(null);
  if (read.data?.approval.id === id) last.current = read.data.approval;
  const shown = last.current?.id === id ? last.current : undefined;

  const reload = () => {
    read.reload();
    history.reload();
  };
  // Each push re-reads this approval and its history through the cache; a deletion is said here.
  useApprovalChanged(id, (change) => {
    if (change.type === 'ApprovalDeleted') setDeleted(true);
  });
  // The company's policy changed: whether this viewer may approve, and why not, may have.
  const companyId = shown?.companyId ?? null;
  useLive(ApprovalPolicyChanged, { companyId }, companyId === null);

  const a = past?.approval ?? shown;
  if (!a)
    return (
      <div className="grid grid-cols-1 gap-6">
        <PageHeader title="Approval Details" />
        {read.error ? (
          <div role="alert" className="flex flex-col items-center gap-3 py-12 text-center">
            <p className="font-medium text-destructive">Error loading approval: {read.error.message}</p>
            <div className="flex gap-2">
              <Button variant="outline" onClick={reload}>
                <RefreshCw aria-hidden="true" />
                Retry
              </Button>
              <Button variant="outline" onClick={() => navigate('/approvals')}>
                Back to Approvals
              </Button>
            </div>
          </div>
        ) : (
          <LoadingState text="Loading approval..." />
        )}
      </div>
    );

  const bills = a.bills ?? NO_BILLS;
  const approvedBills = a.approvedBills ?? NO_BILLS;
  const pending = a.status === 'PENDING' && !deleted && !past;
  // The server's answer for this viewer; it judges the approve itself again when sent.
  const block = a.viewerMayApprove ? null : a.approveBlockedReason;
  const needsTwo = a.secondApprovalRequired;
  const threshold = a.secondApprovalThreshold;
  const canRegenerate = mayRegenerate(user?.role, a.status) && !deleted && !past;
  const regenerateBlocked = regenerateBlockedReason(a.status);
  const canDownload = mayDownloadFiles(user?.role);
  const live = !deleted && !past;

  async function regenerate() {
    setRegenerating(true);
    await runRegenerate(a!.id);
    setRegenerating(false);
  }

  async function approve(billIds: string[], effectiveDate?: string) {
    try {
      const next = await approveCall({
        id: a!.id,
        approvedBillIds: billIds,
        ...(effectiveDate ? { effectiveDate } : {}),
      });
      if (next.approveApproval.awaitingSecondApproval)
        toast.success('First approval recorded', 'A second, different approver must now approve.');
      else toast.success('Approval approved successfully');
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to approve approval');
      throw err;
    }
  }
  async function reject(reason: string) {
    try {
      await rejectCall({ id: a!.id, rejectionReason: reason });
      toast.success('Approval rejected successfully');
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to reject approval');
      throw err;
    }
  }

  return (
    <div className="grid grid-cols-1 gap-6">
      <div>
        <Button variant="ghost" size="sm" asChild>
          <Link to="/approvals">
            <ArrowLeft aria-hidden="true" />
            Back to Approvals
          </Link>
        </Button>
      </div>
      <PageHeader
        title={`Approval #${shortId(a.id)}`}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <span data-testid="detail-status">
              <ApprovalStatusBadge status={a.status} />
            </span>
            <BankPaymentBadge state={a.bankPaymentState} />
            {a.paymentProblem ? <PaymentProblemBadge problem={a.paymentProblem} /> : null}
            <PriorityBadge priority={a.priority} />
            <span>Created {relativeTime(a.createdAt)} ago</span>
          </span>
        }
        actions={
          <>
            <Button variant="outline" onClick={reload}>
              <RefreshCw aria-hidden="true" />
              Refresh
            </Button>
            {canRegenerate ? (
              <Button
                variant="outline"
                onClick={regenerate}
                disabled={regenerating || regenerateBlocked !== null}
                title={regenerateBlocked ?? undefined}
                aria-describedby={regenerateBlocked ? 'nacha-regenerate-blocked' : undefined}
              >
                <RefreshCw aria-hidden="true" className={regenerating ? 'animate-spin' : undefined} />
                Regenerate NACHA
              </Button>
            ) : null}
            {staff && pending ? (
              <>
                <Button variant="outline" onClick={() => setEditOpen(true)}>
                  <Pencil aria-hidden="true" />
                  Edit
                </Button>
                {block ? (
                  <p
                    id="approve-blocked"
                    data-testid="approve-blocked"
                    className="max-w-xs text-sm text-amber-900"
                  >
                    {block}
                  </p>
                ) : null}
                <Button
                  onClick={() => setApproveOpen(true)}
                  disabled={!a.viewerMayApprove}
                  aria-describedby={block ? 'approve-blocked' : undefined}
                >
                  <Check aria-hidden="true" />
                  Approve
                </Button>
                <Button variant="destructive" onClick={() => setRejectOpen(true)}>
                  <X aria-hidden="true" />
                  Reject
                </Button>
              </>
            ) : null}
          </>
        }
      />

      {staff ? <TimelineScrubber approvalId={a.id} onView={setPast} /> : null}

      {deleted ? (
        <p
          role="alert"
          className="rounded-lg border border-destructive/50 bg-destructive/5 px-4 py-3 text-sm text-destructive"
        >
          This approval has been deleted. Its bills are free for a new approval.
        </p>
      ) : null}

      {a.paymentProblem ? (
        <PaymentProblemBanner
          approvalId={a.id}
          status={a.status}
          problem={a.paymentProblem}
          staff={staff && live}
          admin={user?.role === 'ADMIN' && live}
        />
      ) : null}

      {a.paymentPrerequisites ? <PaymentPrerequisites items={a.paymentPrerequisites} /> : null}

      {live ? <BankingFlagsBanner flags={a.bankingFlags} /> : null}
      {live ? <BankingReviewCard approval={a} staff={staff} /> : null}

      {pending && needsTwo && !a.awaitingSecondApproval && threshold !== null ? (
        <section
          aria-label="Segregation of duties"
          className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950"
        >
          <p>
            Above the company’s threshold of {formatCurrency(threshold)}: two different approvers are needed.
          </p>
        </section>
      ) : null}

      {/*
        Wide: the approval's cards in two columns left, the payment cards right, the history under the
        left columns. Narrow: one column, the history last, so the NACHA and QuickBooks cards come
        before it (in the reading and focus order too).
      */}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-3 lg:grid-rows-[auto_1fr] [&>*]:min-w-0">
        <div className="grid content-start gap-6 lg:col-span-2">
          <Card>
            <CardHeader>
              <CardTitle as="h2">Company &amp; Assignment</CardTitle>
            </CardHeader>
            <CardContent>
              <dl className="grid gap-3 sm:grid-cols-2">
                <Field label="Company">{a.companyName ?? 'N/A'}</Field>
                <Field label="Company ID">{a.companyId}</Field>
                <Field label="Manager">{managerLabel(a.managerName, null)}</Field>
                <Field label="Manager email">{a.managerEmail ?? a.manager?.email ?? 'N/A'}</Field>
              </dl>
            </CardContent>
          </Card>

          <Card data-testid="bills-card">
            <CardHeader className="flex flex-row flex-wrap items-center justify-between gap-2">
              <CardTitle as="h2" className="flex items-center gap-2">
                Bills Information <Badge variant="secondary">{bills.length}</Badge>
              </CardTitle>
              <p className="text-sm">
                Total: <span className="font-semibold">{formatCurrency(a.totalAmount)}</span>
              </p>
            </CardHeader>
            <CardContent className="grid gap-4">
              {bills.map((b) => (
                <BillCard key={b.id} approvalId={a.id} bill={b} approved={a.status === 'APPROVED'} />
              ))}
            </CardContent>
          </Card>

          {approvedBills.length > 0 ? (
            <Card>
              <CardHeader className="flex flex-row flex-wrap items-center justify-between gap-2">
                <CardTitle as="h2" className="flex items-center gap-2">
                  Approved Bills <Badge variant="secondary">{approvedBills.length}</Badge>
                </CardTitle>
                <p className="text-sm">
                  Total: <span className="font-semibold">{formatCurrency(a.approvedAmount)}</span>
                </p>
              </CardHeader>
              <CardContent>
                <ul className="grid gap-2 text-sm" data-testid="approved-bills-list">
                  {approvedBills.map((b) => (
                    <li key={b.id} className="flex justify-between gap-2 rounded-md border px-3 py-2">
                      <span>
                        {b.vendorName ?? 'Unknown Vendor'} · Doc # {b.docNumber || 'N/A'} · Bill ID {b.id}
                      </span>
                      <span className="font-medium">
                        {formatCurrency(b.totalAmt, b.currency ?? undefined)}
                      </span>
                    </li>
                  ))}
                </ul>
              </CardContent>
            </Card>
          ) : null}

          {a.status === 'REJECTED' && a.rejectionReason ? (
            <Card className="border-destructive/50">
              <CardHeader>
                <CardTitle as="h2">Rejection Details</CardTitle>
              </CardHeader>
              <CardContent>
                <dl className="grid gap-3 sm:grid-cols-2">
                  <Field label="Rejected by">{personName(a.rejecter) ?? 'N/A'}</Field>
                  <Field label="Date">{formatDateTime(a.rejectionDate)}</Field>
                  <div className="sm:col-span-2">
                    <Field label="Reason">
                      <span data-testid="rejection-reason">{a.rejectionReason}</span>
                    </Field>
                  </div>
                </dl>
              </CardContent>
            </Card>
          ) : null}
        </div>

        <div className="grid content-start gap-6 lg:col-start-3 lg:row-span-2 lg:row-start-1">
          <Card>
            <CardHeader>
              <CardTitle as="h2">Timeline</CardTitle>
            </CardHeader>
            <CardContent>
              <dl className="grid gap-3">
                <Field label="Created">
                  {formatDateTime(a.createdAt)}
                  {personName(a.creator) ? ` by ${personName(a.creator)}` : ''}
                </Field>
                {a.awaitingSecondApproval && a.status === 'PENDING' ? (
                  <Field label="First approval">
                    <span data-testid="awaiting-second">
                      First approval by {personName(a.firstApprover) ?? `user ${a.firstApprovedBy}`} on{' '}
                      {formatDateTime(a.firstApprovedAt)}
                      {a.secondApprovalRequired
                        ? `; a second approver is needed${threshold !== null ? ` (amount above ${formatCurrency(threshold)})` : ''}`
                        : ''}
                    </span>
                  </Field>
                ) : null}
                {a.approvalDate ? (
                  <Field label="Approved">
                    {formatDateTime(a.approvalDate)}
                    {personName(a.approver) ? ` by ${personName(a.approver)}` : ''}
                  </Field>
                ) : null}
                {a.rejectionDate ? (
                  <Field label="Rejected">
                    {formatDateTime(a.rejectionDate)}
                    {personName(a.rejecter) ? ` by ${personName(a.rejecter)}` : ''}
                  </Field>
                ) : null}
                {a.expiredAt ? <Field label="Expired">{formatDateTime(a.expiredAt)}</Field> : null}
                {a.status === 'PENDING' ? <Field label="Expires">{formatDateTime(a.expiresAt)}</Field> : null}
                <Field label="Last updated">{formatDateTime(a.updatedAt)}</Field>
              </dl>
            </CardContent>
          </Card>
          <NachaCard
            payment={a}
            canManage={canRegenerate}
            canDownload={canDownload}
            canSendNow={user?.role === 'ADMIN' && live}
          />
          <BankEntriesCard payment={a} />
          <QbSyncCard payment={a} staff={staff && !deleted && !past} />
          <Card>
            <CardHeader>
              <CardTitle as="h2">System Information</CardTitle>
            </CardHeader>
            <CardContent>
              <dl className="grid gap-3">
                <Field label="Approval ID">
                  <span className="font-mono text-xs">{a.id}</span>
                </Field>
                <Field label="Bill IDs">
                  <span className="font-mono text-xs">{a.billIds.join(',') || 'None'}</span>
                </Field>
                <Field label="Approved Bill IDs">
                  <span className="font-mono text-xs" data-testid="approved-bill-ids">
                    {a.approvedBillIds.join(',') || 'None'}
                  </span>
                </Field>
                {a.confirmedDuplicates.length > 0 ? (
                  <Field label="Confirmed possible duplicates">
                    {a.confirmedDuplicates
                      .map((d) => `${d.billId} (like ${d.paid ? 'paid ' : ''}${d.matchesBillId})`)
                      .join(', ')}
                  </Field>
                ) : null}
              </dl>
            </CardContent>
          </Card>
        </div>

        <Card
          className="lg:col-start-1 lg:col-span-2 lg:row-start-2 lg:self-start"
          data-testid="history-card"
        >
          <CardHeader className="flex flex-row flex-wrap items-center justify-between gap-2">
            <CardTitle as="h2">Activity History</CardTitle>
            <AuditExportButton approvalId={a.id} role={user?.role} onExported={history.reload} />
          </CardHeader>
          <CardContent>
            {history.error && !history.data ? (
              <p role="alert" className="text-sm text-destructive">
                {history.error.message}{' '}
                <Button variant="link" size="sm" onClick={history.reload}>
                  Retry
                </Button>
              </p>
            ) : (history.data?.approvalHistory ?? []).length === 0 ? (
              <p className="text-sm text-muted-foreground">No activity yet.</p>
            ) : (
              <ApprovalHistoryList steps={history.data?.approvalHistory ?? []} canDownload={canDownload} />
            )}
          </CardContent>
        </Card>
      </div>

      <ApproveDialog
        open={approveOpen}
        onOpenChange={setApproveOpen}
        bills={bills}
        onSubmit={approve}
        note={
          a.awaitingSecondApproval
            ? 'Approve the bills the first approver chose, or fewer. A choice that adds other bills above the threshold becomes a new first approval, and another approver must then approve it.'
            : needsTwo
              ? 'This is the first of two approvals.'
              : null
        }
      />
      <RejectDialog open={rejectOpen} onOpenChange={setRejectOpen} onSubmit={reject} />
      {staff && pending ? (
        <EditApprovalDialog open={editOpen} onOpenChange={setEditOpen} approval={a} />
      ) : null}
    </div>
  );
}

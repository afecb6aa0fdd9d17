// /bills (also the company's quick action): a company's open QuickBooks bills with vendor, document
// number, due date, amount, banking readiness, an open approval and the possible-duplicate flag;
// select bills, choose a manager and a priority, create the approval. A possible duplicate needs an
// explicit confirmation, which the server records. ADMINs also set the company's approval policy.
// A company can have hundreds of open bills: they are paged here (the list's page sizes), and the
// selection is kept across pages. Managers come from the staff picker (ACTIVE managers only); the
// company's assigned manager is chosen to begin with, until another is picked.
// A bill that cannot go in an approval (already in an open one, or an amount no ACH payment carries)
// cannot be ticked; one that becomes so (a refused create reads the bills again) leaves the
// selection, so what is counted and sent is only what may be. While QuickBooks asks Billflow to wait,
// the bills are Billflow's copy and a calm notice says as of when; they can be chosen all the same.
// A bill whose vendor's bank details changed recently, or wait for a second look, is flagged.
import { AlertTriangle, Plus, RefreshCw } from 'lucide-react';
import { useEffect, useMemo, useState } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { Checkbox } from '../../../components/ui/checkbox';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '../../../components/ui/dialog';
import { Label } from '../../../components/ui/label';
import { EmptyState, LoadError } from '../../../components/ui/list-states';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '../../../components/ui/select';
import { LoadingState } from '../../../components/ui/spinner';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '../../../components/ui/table';
import { toast } from '../../../components/ui/use-toast';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { useRowSelection } from '../../../hooks/use-row-selection';
import { useSession } from '../../../lib/auth';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import { formatCurrency } from '../../../lib/utils';
import {
  type BillCandidate,
  BillCandidatesQuery,
  CompanyChoicesQuery,
  CreateApproval,
  ManagerOptionsQuery,
  type Priority,
  SLOW_MS,
} from '../api/approvals';
import {
  billSelectable,
  DEFAULT_PAGE_SIZE,
  formatDate,
  type PageSize,
  pageOf,
  shortId,
} from '../utils/approval-rules';
import { ApprovalPolicyCard } from './approval-policy-card';
import { ApprovalsPagination } from './approvals-pagination';
import { ManagerField, NO_MANAGER, PriorityField } from './assignment-fields';
import { BankingFlagMarker } from './banking-flags';
import { copyShownAsOf, QuickBooksWaitNotice } from './quickbooks-wait-notice';

const NO_BILLS: readonly BillCandidate[] = [];

export function BillsPage() {
  useDocumentTitle('New approval from bills');
  const { user } = useSession();
  const isAdmin = user?.role === 'ADMIN';
  const staff = isAdmin || user?.role === 'MODERATOR';
  const navigate = useNavigate();
  const location = useLocation();
  const [params, setParams] = useSearchParams();
  const stateCompany = (location.state as { companyId?: number } | null)?.companyId;
  const companyId = params.get('companyId') ?? (stateCompany ? String(stateCompany) : '');
  const { selected, toggle, setMany, retain, clear: clearSelection, allOf } = useRowSelection<string>();
  const [managerId, setManagerId] = useState(NO_MANAGER);
  // A manager picked on the screen stays; until then the company's own manager is the choice.
  const [managerPicked, setManagerPicked] = useState(false);
  const [priority, setPriority] = useState<Priority>('MEDIUM');
  const [creating, setCreating] = useState(false);
  const [confirmOpen, setConfirmOpen] = useState(false);
  const [confirmed, setConfirmed] = useState(false);
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState<PageSize>(DEFAULT_PAGE_SIZE);

  const companyRead = useGqlQuery(CompanyChoicesQuery, {}, { fallback: 'Failed to fetch companies' });
  const managerRead = useGqlQuery(
    ManagerOptionsQuery,
    { companyId: companyId === '' ? null : Number(companyId) },
    { pause: !staff, fallback: 'Failed to fetch managers' },
  );
  const billRead = useGqlQuery(
    BillCandidatesQuery,
    { companyId: Number(companyId) },
    { pause: companyId === '', fallback: 'Failed to fetch bills', timeoutMs: SLOW_MS },
  );
  const createCall = useGqlMutation(CreateApproval, 'Failed to create approval', SLOW_MS);
  const managers = { data: managerRead.data?.approvalManagerOptions, error: managerRead.error };
  const companyManagerId = managers.data?.find((m) => m.companyManager)?.id;
  useEffect(() => {
    if (!managerPicked) setManagerId(companyManagerId === undefined ? NO_MANAGER : String(companyManagerId));
  }, [companyManagerId, managerPicked]);
  const bills = {
    data: companyId === '' ? undefined : billRead.data?.approvalBillCandidates,
    error: billRead.error,
    loading: billRead.loading,
    reload: billRead.reload,
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: another company starts with nothing selected
  useEffect(() => {
    clearSelection();
    setPage(1);
    setManagerPicked(false);
  }, [companyId]);

  const rows = bills.data ?? NO_BILLS;
  // While QuickBooks asks to wait, the bills are Billflow's copy: a notice says as of when.
  const copyAsOf = copyShownAsOf(rows);
  // A bill that can no longer go in an approval (or is gone) leaves the selection.
  useEffect(() => {
    if (!bills.data) return;
    const open = new Set(bills.data.filter(billSelectable).map((b) => b.id));
    retain((id) => open.has(id));
  }, [bills.data, retain]);
  // Counted and sent: only the selected bills that may go in an approval.
  const chosen = useMemo(() => rows.filter((b) => selected.has(b.id) && billSelectable(b)), [rows, selected]);
  const duplicates = chosen.filter((b) => b.possibleDuplicate);
  const total = chosen.reduce((sum, b) => sum + b.amount, 0);
  // The header checkbox works on the page shown; what is selected on other pages stays selected.
  const shown = pageOf(rows, page, limit);
  const selectable = shown.rows.filter(billSelectable);
  const pageAllSelected = allOf(selectable.map((b) => b.id));

  async function create(confirmDuplicates: string[]) {
    setCreating(true);
    try {
      const approval = (
        await createCall({
          input: {
            companyId: Number(companyId),
            billIds: chosen.map((b) => b.id),
            ...(managerId === NO_MANAGER ? {} : { managerId: Number(managerId) }),
            priority,
            confirmDuplicates,
          },
        })
      ).createApproval;
      toast.success('Approval created successfully', `Approval #${shortId(approval.id)}`);
      navigate(`/approvals/${approval.id}`);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to create approval');
      // A bill refused as already in an open approval shows so, and leaves the selection.
      bills.reload();
    } finally {
      setCreating(false);
    }
  }

  function onCreate() {
    if (duplicates.length > 0) {
      setConfirmed(false);
      setConfirmOpen(true);
      return;
    }
    void create([]);
  }

  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Create Approval from Bills"
        description="Open QuickBooks bills of a company; choose the bills to send for approval"
        actions={
          companyId ? (
            <Button variant="outline" onClick={bills.reload} disabled={bills.loading}>
              <RefreshCw aria-hidden="true" />
              Refresh Bills
            </Button>
          ) : null
        }
      />
      <Card className="py-4">
        <CardContent className="grid gap-4 sm:grid-cols-3">
          <div className="grid gap-2">
            <Label htmlFor="bills-company">Company</Label>
            <Select
              value={companyId || undefined}
              onValueChange={(v) => setParams({ companyId: v }, { replace: true })}
            >
              <SelectTrigger id="bills-company" aria-label="Company">
                <SelectValue placeholder="Choose a company" />
              </SelectTrigger>
              <SelectContent>
                {(companyRead.data?.companies.data ?? []).map((c) => (
                  <SelectItem key={c.id} value={String(c.id)}>
                    {c.name}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </div>
          <ManagerField
            id="bills-manager"
            value={managerId}
            onChange={(next) => {
              setManagerPicked(true);
              setManagerId(next);
            }}
            options={managers.data ?? []}
            error={managers.error}
            disabled={!staff}
          />
          <PriorityField id="bills-priority" value={priority} onChange={setPriority} />
        </CardContent>
      </Card>

      <Card className="gap-0 py-0">
        <CardHeader className="flex flex-row flex-wrap items-center justify-between gap-3 border-b py-4">
          <CardTitle as="h2">Open Bills</CardTitle>
          <div className="flex flex-wrap items-center gap-3">
            <span className="text-sm" data-testid="selection-summary">
              {chosen.length} selected · {formatCurrency(total)}
            </span>
            <Button onClick={onCreate} disabled={creating || chosen.length === 0}>
              <Plus aria-hidden="true" />
              {creating ? 'Creating…' : 'Create Approval'}
            </Button>
          </div>
        </CardHeader>
        <CardContent className="px-0">
          {companyId && copyAsOf ? <QuickBooksWaitNotice asOf={copyAsOf} /> : null}
          {!companyId ? (
            <p className="px-6 py-12 text-center text-sm text-muted-foreground">
              Choose a company to see its open QuickBooks bills.
            </p>
          ) : bills.error && !bills.data ? (
            <LoadError title={`Error loading bills: ${bills.error.message}`} onRetry={bills.reload} />
          ) : !bills.data ? (
            <LoadingState text="Loading bills from QuickBooks..." />
          ) : rows.length === 0 ? (
            <EmptyState title="No open bills" />
          ) : (
            <Table>
              <TableHeader>
                <TableRow>
                  <TableHead className="w-10 pl-4">
                    <Checkbox
                      aria-label="Select all bills on this page"
                      checked={pageAllSelected}
                      onChange={(e) =>
                        setMany(
                          selectable.map((b) => b.id),
                          e.target.checked,
                        )
                      }
                    />
                  </TableHead>
                  <TableHead>Vendor</TableHead>
                  <TableHead>Doc #</TableHead>
                  <TableHead>Due</TableHead>
                  <TableHead className="text-right">Amount</TableHead>
                  <TableHead>Banking</TableHead>
                  <TableHead className="pr-4">Notes</TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {shown.rows.map((b) => (
                  <TableRow
                    key={b.id}
                    data-testid={`bill-row-${b.id}`}
                    data-state={selected.has(b.id) ? 'selected' : undefined}
                  >
                    <TableCell className="pl-4">
                      <Checkbox
                        aria-label={`Select bill ${b.docNumber ?? b.id}`}
                        checked={selected.has(b.id) && billSelectable(b)}
                        disabled={!billSelectable(b)}
                        onChange={(e) => toggle(b.id, e.target.checked)}
                      />
                    </TableCell>
                    <TableCell>{b.vendorName ?? 'Unknown Vendor'}</TableCell>
                    <TableCell>{b.docNumber ?? 'N/A'}</TableCell>
                    <TableCell>{formatDate(b.dueDate)}</TableCell>
                    <TableCell className="text-right">{formatCurrency(b.amount)}</TableCell>
                    <TableCell>
                      {b.bankingReady ? (
                        <Badge className="border-transparent bg-green-700 text-white">Ready for ACH</Badge>
                      ) : (
                        <Badge variant="destructive">Missing Banking Info</Badge>
                      )}
                    </TableCell>
                    <TableCell className="pr-4">
                      <div className="flex flex-wrap gap-2">
                        {b.inOpenApproval && b.openApprovalId ? (
                          <Link to={`/approvals/${b.openApprovalId}`} className="text-sm underline">
                            In approval #{shortId(b.openApprovalId)}
                          </Link>
                        ) : null}
                        {b.refusedReason ? (
                          <Badge variant="destructive" data-testid="refused-flag">
                            Cannot be paid: {b.refusedReason}
                          </Badge>
                        ) : null}
                        <BankingFlagMarker flags={b.bankingFlags} testId={`bill-banking-flag-${b.id}`} />
                        {b.possibleDuplicate ? (
                          <Badge
                            className="border-transparent bg-amber-100 text-amber-900"
                            data-testid="duplicate-flag"
                          >
                            <AlertTriangle aria-hidden="true" />
                            Possible duplicate
                            {b.duplicateOfBillId
                              ? ` of ${b.duplicateOfPaid ? 'paid ' : ''}bill ${b.duplicateOfBillId}`
                              : ''}
                          </Badge>
                        ) : null}
                      </div>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          )}
          {rows.length > 0 ? (
            <ApprovalsPagination
              page={shown.page}
              totalPages={shown.totalPages}
              total={rows.length}
              limit={limit}
              noun="bills"
              onPage={setPage}
              onLimit={(n) => {
                setLimit(n);
                setPage(1);
              }}
            />
          ) : null}
        </CardContent>
      </Card>

      {isAdmin && companyId ? <ApprovalPolicyCard companyId={companyId} /> : null}

      <Dialog open={confirmOpen} onOpenChange={(o) => !creating && setConfirmOpen(o)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Possible duplicate bills</DialogTitle>
            <DialogDescription>
              These bills match a bill already in an approval or paid (same vendor, amount and document
              number).
            </DialogDescription>
          </DialogHeader>
          <ul className="grid gap-1 text-sm">
            {duplicates.map((b) => (
              <li key={b.id}>
                Bill {b.id} ({b.vendorName ?? 'Unknown Vendor'}, {b.docNumber ?? 'N/A'},{' '}
                {formatCurrency(b.amount)})
                {b.duplicateOfBillId
                  ? ` looks like ${b.duplicateOfPaid ? 'paid ' : ''}bill ${b.duplicateOfBillId}`
                  : ''}
              </li>
            ))}
          </ul>
          <label className="flex items-start gap-2 text-sm" htmlFor="confirm-duplicates">
            <Checkbox
              id="confirm-duplicates"
              className="mt-0.5"
              checked={confirmed}
              onChange={(e) => setConfirmed(e.target.checked)}
            />
            I have checked these bills and confirm they are not duplicates. This confirmation is recorded.
          </label>
          <DialogFooter>
            <Button variant="outline" onClick={() => setConfirmOpen(false)} disabled={creating}>
              Cancel
            </Button>
            <Button
              disabled={!confirmed || creating}
              onClick={async () => {
                await create(duplicates.map((b) => b.id));
                setConfirmOpen(false);
              }}
            >
              Confirm and Create
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </div>
  );
}

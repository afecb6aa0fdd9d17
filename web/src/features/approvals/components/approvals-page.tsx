// /approvals (spec 2 §2 Approvals list; issue 12): five stat cards and the bill figures, filters
// behind a toggle, a sortable server-paged table with row approve/reject for staff, a row menu, bulk
// approve and reject of the selected PENDING rows with a result per row, and the paging footer.
// Export CSV downloads the server's export with the filters in force. A row's approve is disabled,
// with the server's reason as its title, when the viewer may not approve it (segregation of duties).
// Live: any approval change (another session, a worker, the expiry job) refetches list and figures.
import { Check, Download, Filter, MoreHorizontal, Plus, RefreshCw, X } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent } from '../../../components/ui/card';
import { Checkbox } from '../../../components/ui/checkbox';
import { DateTimeStack } from '../../../components/ui/date-time-stack';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuTrigger,
} from '../../../components/ui/dropdown-menu';
import { FilterSelect } from '../../../components/ui/filter-select';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { EmptyState, LoadError } from '../../../components/ui/list-states';
import { LoadingState } from '../../../components/ui/spinner';
import {
  pinnedEnd,
  SortHeader,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from '../../../components/ui/table';
import { toast } from '../../../components/ui/use-toast';
import { useApprovalChanged } from '../../../hooks/use-approval-changed';
import { useApprovalPolicyChanged } from '../../../hooks/use-approval-policy-changed';
import { useCoalescedRefresh } from '../../../hooks/use-coalesced-refresh';
import { useLiveResync } from '../../../hooks/use-live-resync';
import { useRowSelection } from '../../../hooks/use-row-selection';
import { useSession } from '../../../lib/auth';
import { useRemote } from '../../../lib/use-remote';
import { cn } from '../../../lib/utils';
import {
  type Approval,
  type ApprovalFilters,
  approveApproval,
  type BulkResult,
  bulkApprove,
  bulkReject,
  deleteApproval,
  exportApprovals,
  getApprovalStats,
  getApprovals,
  getCompanyChoices,
  rejectApproval,
} from '../api/approvals';
import {
  type ApprovalSort,
  type ApprovalSortKey,
  bulkSummary,
  DEFAULT_PAGE_SIZE,
  DEFAULT_SORT,
  formatUsd,
  managerLabel,
  NACHA_STATUSES,
  type PageSize,
  PRIORITIES,
  percent,
  STATUS_FILTERS,
  shortId,
  titleCase,
  toggleSort,
} from '../utils/approval-rules';
import { ApprovalStatusBadge, PriorityBadge } from './approval-badges';
import { ApprovalStatCards } from './approval-stat-cards';
import { ApprovalsPagination } from './approvals-pagination';
import { RejectDialog } from './reject-dialog';

const EMPTY: ApprovalFilters = { search: '', companyId: '', status: '', priority: '' };

/** The server sorts the approvals (toggleSort: a column's second click reverses it). */
function SortHead({
  sortKey,
  sort,
  onSort,
  children,
}: {
  sortKey: ApprovalSortKey;
  sort: ApprovalSort;
  onSort: (key: ApprovalSortKey) => void;
  children: string;
}) {
  return (
    <SortHeader direction={sort.key === sortKey ? sort.direction : null} onSort={() => onSort(sortKey)}>
      {children}
    </SortHeader>
  );
}

export function ApprovalsPage() {
  const role = useSession().user?.role;
  const staff = role === 'ADMIN' || role === 'MODERATOR';
  const navigate = useNavigate();
  // The company detail's 'View Approvals' comes with its company chosen.
  const fromCompany = (useLocation().state as { companyId?: number } | null)?.companyId;
  const [filters, setFilters] = useState<ApprovalFilters>(() =>
    fromCompany ? { ...EMPTY, companyId: String(fromCompany) } : EMPTY,
  );
  const [searchText, setSearchText] = useState('');
  const [showFilters, setShowFilters] = useState(Boolean(fromCompany));
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState<PageSize>(DEFAULT_PAGE_SIZE);
  const [sort, setSort] = useState<ApprovalSort>(DEFAULT_SORT);
  const { selected, toggle, setMany, retain, clear: clearSelection, allOf } = useRowSelection<string>();
  const [busyRow, setBusyRow] = useState<string | null>(null);
  const [bulkBusy, setBulkBusy] = useState(false);
  const [exporting, setExporting] = useState(false);
  const [bulkRejectOpen, setBulkRejectOpen] = useState(false);
  const [bulkResult, setBulkResult] = useState<{ verb: 'approved' | 'rejected'; result: BulkResult } | null>(
    null,
  );

  const list = useRemote(
    (signal) => getApprovals(filters, page, limit, sort, signal),
    [filters, page, limit, sort],
  );
  const stats = useRemote((signal) => getApprovalStats(signal), []);
  const companies = useRemote((signal) => getCompanyChoices(signal), []);
  const { reload: reloadList } = list;
  const { reload: reloadStats } = stats;
  const refresh = () => {
    reloadList();
    reloadStats();
  };

  const setFilter = (patch: Partial<ApprovalFilters>) => {
    setFilters((f) => ({ ...f, ...patch }));
    setPage(1);
  };
  useEffect(() => {
    if (searchText === filters.search) return;
    const t = setTimeout(() => setFilter({ search: searchText }), 300);
    return () => clearTimeout(t);
  });

  // A single change shows as soon as it is pushed; a burst (a bulk action) costs two refetches.
  const refreshSoon = useCoalescedRefresh(refresh);
  useApprovalChanged(null, refreshSoon);
  // A company's policy changed: the rows' Approve buttons and their reasons may have.
  useApprovalPolicyChanged(null, refreshSoon);
  useLiveResync(refresh);

  const data = list.data;
  const rows = data?.data ?? [];
  useEffect(() => {
    if (data && data.data.length === 0 && page > 1 && data.totalPages < page)
      setPage(Math.max(1, data.totalPages));
  }, [data, page]);
  // Only rows still shown and still PENDING stay selected.
  useEffect(() => {
    if (!data) return;
    const pending = new Set(data.data.filter((a) => a.status === 'PENDING').map((a) => a.id));
    retain((id) => pending.has(id));
  }, [data, retain]);

  const pendingRows = rows.filter((a) => a.status === 'PENDING');
  const allSelected = allOf(pendingRows.map((a) => a.id));
  const activeFilters = Boolean(filters.search || filters.companyId || filters.status || filters.priority);

  async function approveRow(a: Approval) {
    setBusyRow(a.id);
    try {
      await approveApproval(a.id, a.billIdList);
      toast.success('Approval approved successfully');
      refresh();
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to approve approval');
    } finally {
      setBusyRow(null);
    }
  }

  async function rejectRow(a: Approval) {
    const reason = window.prompt('Please provide a reason for rejection:');
    if (!reason?.trim()) return;
    setBusyRow(a.id);
    try {
      await rejectApproval(a.id, reason.trim());
      toast.success('Approval rejected successfully');
      refresh();
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to reject approval');
    } finally {
      setBusyRow(null);
    }
  }

  async function deleteRow(a: Approval) {
    setBusyRow(a.id);
    try {
      await deleteApproval(a.id);
      toast.success('Approval deleted successfully');
      refresh();
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to delete approval');
    } finally {
      setBusyRow(null);
    }
  }

  async function exportCsv() {
    setExporting(true);
    try {
      await exportApprovals(filters);
      toast.success('Download started');
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to export approvals', 'Export failed');
    } finally {
      setExporting(false);
    }
  }

  async function runBulk(verb: 'approved' | 'rejected', call: () => Promise<BulkResult>) {
    setBulkBusy(true);
    try {
      const result = await call();
      setBulkResult({ verb, result });
      clearSelection();
      const text = bulkSummary(verb, result.summary);
      if (result.summary.failed > 0)
        toast({ variant: 'destructive', title: 'Bulk action finished', description: text });
      else toast.success('Bulk action finished', text);
      refresh();
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Bulk action failed');
      throw err;
    } finally {
      setBulkBusy(false);
    }
  }

  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Bill Approvals"
        description="Approvals of QuickBooks bills, from creation to decision"
        actions={
          <>
            <Button variant="outline" onClick={refresh}>
              <RefreshCw aria-hidden="true" />
              Refresh
            </Button>
            <Button variant="outline" onClick={exportCsv} disabled={exporting}>
              <Download aria-hidden="true" />
              {exporting ? 'Exporting…' : 'Export CSV'}
            </Button>
            {staff ? (
              <Button asChild>
                <Link to="/bills">
                  <Plus aria-hidden="true" />
                  New Approval
                </Link>
              </Button>
            ) : null}
          </>
        }
      />

      <ApprovalStatCards stats={stats.data} />

      <div className="grid gap-3">
        <div>
          <Button
            variant="outline"
            aria-expanded={showFilters}
            aria-controls="approval-filters"
            onClick={() => setShowFilters((v) => !v)}
          >
            <Filter aria-hidden="true" />
            Filters
            {activeFilters ? (
              <Badge variant="secondary" data-testid="filters-active">
                Active
              </Badge>
            ) : null}
          </Button>
        </div>
        {showFilters ? (
          <Card className="py-4" id="approval-filters">
            <CardContent className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
              <div className="grid gap-2">
                <Label htmlFor="approval-search">Search</Label>
                <Input
                  id="approval-search"
                  type="search"
                  placeholder="ID, company, vendor, doc #..."
                  value={searchText}
                  maxLength={255}
                  onChange={(e) => setSearchText(e.target.value)}
                />
              </div>
              <FilterSelect
                id="approval-company-filter"
                label="Company"
                allLabel="All Companies"
                value={filters.companyId}
                onChange={(companyId) => setFilter({ companyId })}
                options={(companies.data ?? []).map((c) => ({ value: String(c.id), label: c.name }))}
              />
              <FilterSelect
                id="approval-status-filter"
                label="Status"
                allLabel="All"
                value={filters.status}
                onChange={(status) => setFilter({ status })}
                options={STATUS_FILTERS.map((s) => ({ value: s, label: titleCase(s) }))}
              />
              <FilterSelect
                id="approval-priority-filter"
                label="Priority"
                allLabel="All"
                value={filters.priority}
                onChange={(priority) => setFilter({ priority })}
                options={PRIORITIES.map((p) => ({ value: p, label: titleCase(p) }))}
              />
            </CardContent>
          </Card>
        ) : null}
      </div>

      {staff && selected.size > 0 ? (
        <section
          aria-label="Bulk actions"
          className="flex flex-wrap items-center gap-3 rounded-lg border bg-muted/50 px-4 py-3"
        >
          <span className="text-sm font-medium">{selected.size} selected</span>
          <Button
            size="sm"
            disabled={bulkBusy}
            onClick={() => runBulk('approved', () => bulkApprove([...selected])).catch(() => {})}
          >
            <Check aria-hidden="true" />
            Approve selected
          </Button>
          <Button size="sm" variant="destructive" disabled={bulkBusy} onClick={() => setBulkRejectOpen(true)}>
            <X aria-hidden="true" />
            Reject selected
          </Button>
          <Button size="sm" variant="ghost" disabled={bulkBusy} onClick={() => clearSelection()}>
            Clear selection
          </Button>
        </section>
      ) : null}

      {bulkResult ? (
        <section aria-label="Bulk results" className="grid gap-2 rounded-lg border px-4 py-3">
          <div className="flex items-center justify-between gap-2">
            <p className="text-sm font-medium" data-testid="bulk-summary">
              {bulkSummary(bulkResult.verb, bulkResult.result.summary)}
            </p>
            <Button size="sm" variant="ghost" onClick={() => setBulkResult(null)}>
              Dismiss
            </Button>
          </div>
          <ul className="grid gap-1 text-sm">
            {bulkResult.result.results.map((r) => (
              <li key={r.id} data-testid={`bulk-result-${r.id}`}>
                <span className="font-mono">#{shortId(r.id)}</span>{' '}
                {r.success ? (
                  <span className="text-green-800">{titleCase(r.status ?? bulkResult.verb)}</span>
                ) : (
                  <span className="text-destructive">Failed: {r.error ?? 'Unknown error'}</span>
                )}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <Card className="gap-0 py-0">
        <CardContent className="px-0">
          {list.error && !data ? (
            <LoadError title={`Error loading approvals: ${list.error.message}`} onRetry={refresh} />
          ) : !data ? (
            <LoadingState text="Loading approvals..." />
          ) : (
            <>
              {rows.length === 0 ? (
                <EmptyState
                  title="No approvals found"
                  description={
                    activeFilters
                      ? 'No approval matches these filters.'
                      : 'Create one from a company’s bills.'
                  }
                />
              ) : (
                <Table>
                  <TableHeader>
                    <TableRow>
                      {staff ? (
                        <TableHead className="w-10 pl-4">
                          <Checkbox
                            aria-label="Select all pending approvals"
                            checked={allSelected}
                            disabled={pendingRows.length === 0}
                            onChange={(e) =>
                              setMany(
                                pendingRows.map((a) => a.id),
                                e.target.checked,
                              )
                            }
                          />
                        </TableHead>
                      ) : null}
                      <TableHead className={staff ? undefined : 'pl-4'}>ID</TableHead>
                      <SortHead
                        sortKey="companyName"
                        sort={sort}
                        onSort={(k) => setSort(toggleSort(sort, k))}
                      >
                        Company
                      </SortHead>
                      <SortHead sortKey="billCount" sort={sort} onSort={(k) => setSort(toggleSort(sort, k))}>
                        Processed Bills
                      </SortHead>
                      <SortHead
                        sortKey="approvedBillCount"
                        sort={sort}
                        onSort={(k) => setSort(toggleSort(sort, k))}
                      >
                        Approved Bills
                      </SortHead>
                      <SortHead sortKey="status" sort={sort} onSort={(k) => setSort(toggleSort(sort, k))}>
                        Status
                      </SortHead>
                      <SortHead sortKey="priority" sort={sort} onSort={(k) => setSort(toggleSort(sort, k))}>
                        Priority
                      </SortHead>
                      <SortHead
                        sortKey="totalAmount"
                        sort={sort}
                        onSort={(k) => setSort(toggleSort(sort, k))}
                      >
                        Processed Amount
                      </SortHead>
                      <SortHead
                        sortKey="approvedAmount"
                        sort={sort}
                        onSort={(k) => setSort(toggleSort(sort, k))}
                      >
                        Approved Amount
                      </SortHead>
                      <SortHead
                        sortKey="managerName"
                        sort={sort}
                        onSort={(k) => setSort(toggleSort(sort, k))}
                      >
                        Manager
                      </SortHead>
                      <SortHead sortKey="createdAt" sort={sort} onSort={(k) => setSort(toggleSort(sort, k))}>
                        Created
                      </SortHead>
                      <TableHead className={cn('pr-4 text-right', pinnedEnd)}>Actions</TableHead>
                    </TableRow>
                  </TableHeader>
                  <TableBody>
                    {rows.map((a) => {
                      const pending = a.status === 'PENDING';
                      const busy = busyRow === a.id || bulkBusy;
                      return (
                        <TableRow
                          key={a.id}
                          data-testid={`approval-row-${a.id}`}
                          data-state={selected.has(a.id) ? 'selected' : undefined}
                        >
                          {staff ? (
                            <TableCell className="pl-4">
                              <Checkbox
                                aria-label={`Select approval ${shortId(a.id)}`}
                                checked={selected.has(a.id)}
                                disabled={!pending}
                                onChange={(e) => toggle(a.id, e.target.checked)}
                              />
                            </TableCell>
                          ) : null}
                          <TableCell className={staff ? 'font-mono text-xs' : 'pl-4 font-mono text-xs'}>
                            <Link to={`/approvals/${a.id}`} className="hover:underline">
                              {shortId(a.id)}
                            </Link>
                          </TableCell>
                          <TableCell className="min-w-24 whitespace-normal">
                            {a.companyName ?? a.company?.name ?? `Company ${a.companyId}`}
                          </TableCell>
                          <TableCell data-testid="processed-bills">{a.billCount}</TableCell>
                          <TableCell data-testid="approved-bills">
                            {a.approvedBillCount}{' '}
                            <span className="text-xs text-muted-foreground">
                              ({percent(a.approvedBillCount, a.billCount)}%)
                            </span>
                          </TableCell>
                          <TableCell data-testid="status">
                            <ApprovalStatusBadge status={a.status} />
                            {a.awaitingSecondApproval ? (
                              <span className="mt-1 block text-xs text-muted-foreground">
                                2nd approval due
                              </span>
                            ) : null}
                          </TableCell>
                          <TableCell>
                            <PriorityBadge priority={a.priority} />
                          </TableCell>
                          <TableCell className="tabular-nums">{formatUsd(a.totalAmount)}</TableCell>
                          <TableCell className="tabular-nums">{formatUsd(a.approvedAmount)}</TableCell>
                          <TableCell className="min-w-24 whitespace-normal">
                            {managerLabel(a.managerName, a.managerEmail)}
                          </TableCell>
                          <TableCell className="text-sm">
                            <DateTimeStack iso={a.createdAt} empty="N/A" />
                          </TableCell>
                          <TableCell className={cn('pr-4 text-right', pinnedEnd)}>
                            <div className="flex items-center justify-end gap-0.5">
                              {staff && pending ? (
                                <>
                                  <Button
                                    variant="ghost"
                                    size="icon"
                                    className="size-8"
                                    // The server's per-viewer answer; absent (an older answer) means allowed.
                                    disabled={busy || a.viewerMayApprove === false}
                                    aria-label={`Approve approval ${shortId(a.id)}`}
                                    title={
                                      a.viewerMayApprove === false
                                        ? (a.approveBlockedReason ?? 'You may not approve this approval')
                                        : 'Approve all bills'
                                    }
                                    onClick={() => approveRow(a)}
                                  >
                                    <Check className="text-green-700" aria-hidden="true" />
                                  </Button>
                                  <Button
                                    variant="ghost"
                                    size="icon"
                                    className="size-8"
                                    disabled={busy}
                                    aria-label={`Reject approval ${shortId(a.id)}`}
                                    title="Reject"
                                    onClick={() => rejectRow(a)}
                                  >
                                    <X className="text-destructive" aria-hidden="true" />
                                  </Button>
                                </>
                              ) : null}
                              <DropdownMenu>
                                <DropdownMenuTrigger asChild>
                                  <Button
                                    variant="ghost"
                                    size="icon"
                                    className="size-8"
                                    aria-label={`Actions for approval ${shortId(a.id)}`}
                                  >
                                    <MoreHorizontal aria-hidden="true" />
                                  </Button>
                                </DropdownMenuTrigger>
                                <DropdownMenuContent align="end">
                                  <DropdownMenuItem onSelect={() => navigate(`/approvals/${a.id}`)}>
                                    View Details
                                  </DropdownMenuItem>
                                  {staff ? (
                                    <>
                                      {(NACHA_STATUSES as readonly string[]).includes(a.status) ? (
                                        <DropdownMenuItem
                                          disabled
                                          title="NACHA files come with a later issue"
                                        >
                                          Regenerate NACHA (not available yet)
                                        </DropdownMenuItem>
                                      ) : null}
                                      <DropdownMenuItem variant="destructive" onSelect={() => deleteRow(a)}>
                                        Delete
                                      </DropdownMenuItem>
                                    </>
                                  ) : null}
                                </DropdownMenuContent>
                              </DropdownMenu>
                            </div>
                          </TableCell>
                        </TableRow>
                      );
                    })}
                  </TableBody>
                </Table>
              )}
              <ApprovalsPagination
                page={data.page}
                totalPages={data.totalPages}
                total={data.total}
                limit={limit}
                onPage={setPage}
                onLimit={(n) => {
                  setLimit(n);
                  setPage(1);
                }}
              />
            </>
          )}
        </CardContent>
      </Card>
      <RejectDialog
        open={bulkRejectOpen}
        onOpenChange={setBulkRejectOpen}
        title="Reject Selected Approvals"
        description={`One reason for the ${selected.size} selected approvals; each is rejected on its own.`}
        submitLabel="Reject Selected"
        onSubmit={(reason) => runBulk('rejected', () => bulkReject([...selected], reason))}
      />
    </div>
  );
}

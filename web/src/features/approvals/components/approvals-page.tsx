// /approvals: five stat cards and the bill figures, filters
// behind a toggle, a sortable server-paged table (the shared DataList) with row approve/reject for
// staff, a row menu, bulk approve and reject of the selected PENDING rows with a result per row, and
// the paging footer. Export CSV downloads the server's export with the filters in force. A row's
// approve is disabled, with the server's reason as its title, when the viewer may not approve it.
// Live: any approval or policy change re-reads the list and its figures together through the cache.
// Narrow screens show the columns that matter (ID, status, actions; then amount, company …), so
// nothing is pinned over another column and a phone sees each row's status. A row whose payment is
// held says so under its status; the Payment filter finds them (a stuck file, a failed sync, a file
// waiting for the next banking day), and a link may open the list filtered (?problem=any, ?status=…).
import { Check, Download, Filter, Plus, RefreshCw, X } from 'lucide-react';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent } from '../../../components/ui/card';
import { DataList } from '../../../components/ui/data-list';
import { FilterSelect } from '../../../components/ui/filter-select';
import { FilterBar, SearchField, useClampPage, useListState } from '../../../components/ui/list-filters';
import { toast } from '../../../components/ui/use-toast';
import { ApprovalsChanged } from '../../../hooks/use-approval-changed';
import { ApprovalPolicyChanged } from '../../../hooks/use-approval-policy-changed';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { useLive } from '../../../hooks/use-live';
import { useRowSelection } from '../../../hooks/use-row-selection';
import { useSession } from '../../../lib/auth';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import {
  type ApprovalFilters,
  type ApprovalRow,
  ApprovalStatsQuery,
  ApprovalsQuery,
  type ApprovalsVariables,
  ApproveApproval,
  BULK_MS,
  BulkApprove,
  BulkReject,
  type BulkResult,
  CompanyChoicesQuery,
  DeleteApproval,
  exportApprovals,
  RejectApproval,
} from '../api/approvals';
import {
  type ApprovalSort,
  bulkSummary,
  DEFAULT_PAGE_SIZE,
  DEFAULT_SORT,
  type PageSize,
  PRIORITIES,
  PROBLEM_FILTERS,
  problemFilterOf,
  STATUS_FILTERS,
  shortId,
  statusFilterOf,
  titleCase,
  toggleSort,
} from '../utils/approval-rules';
import { approvalColumns, DENSE } from './approval-columns';
import { ApprovalStatCards } from './approval-stat-cards';
import { ApprovalsPagination } from './approvals-pagination';
import { useRegenerateNacha } from './nacha-card';
import { RejectDialog } from './reject-dialog';

const EMPTY: ApprovalFilters = { search: '', companyId: '', status: '', priority: '', problem: '' };

function toVariables(
  filters: ApprovalFilters,
  page: number,
  limit: PageSize,
  sort: ApprovalSort,
): ApprovalsVariables {
  return {
    search: filters.search.trim() || null,
    companyId: filters.companyId ? Number(filters.companyId) : null,
    status: (filters.status || null) as ApprovalsVariables['status'],
    priority: (filters.priority || null) as ApprovalsVariables['priority'],
    problem: (filters.problem.toUpperCase() || null) as ApprovalsVariables['problem'],
    page,
    limit,
    sortBy: sort.key,
    sortOrder: sort.direction,
  };
}

export function ApprovalsPage() {
  useDocumentTitle('Approvals');
  const role = useSession().user?.role;
  const staff = role === 'ADMIN' || role === 'MODERATOR';
  const navigate = useNavigate();
  // The company detail's 'View Approvals' comes with its company chosen.
  const fromCompany = (useLocation().state as { companyId?: number } | null)?.companyId;
  // A link may open the list filtered: the dashboard's payments needing attention (?problem=any).
  const [params] = useSearchParams();
  const fromLink = {
    status: statusFilterOf(params.get('status')),
    problem: problemFilterOf(params.get('problem')),
  };
  const list = useListState<Record<keyof ApprovalFilters, string>>({
    ...EMPTY,
    ...(fromCompany ? { companyId: String(fromCompany) } : {}),
    ...fromLink,
  });
  const { filters, page, setPage, setFilter } = list;
  const [showFilters, setShowFilters] = useState(Boolean(fromCompany || fromLink.status || fromLink.problem));
  const [limit, setLimit] = useState<PageSize>(DEFAULT_PAGE_SIZE);
  const [sort, setSort] = useState<ApprovalSort>(DEFAULT_SORT);
  const { selected, toggle, setMany, retain, clear: clearSelection, allOf } = useRowSelection<string>();
  const [busyRow, setBusyRow] = useState<string | null>(null);
  const runRegenerate = useRegenerateNacha();
  const [bulkBusy, setBulkBusy] = useState(false);
  const [exporting, setExporting] = useState(false);
  const [bulkRejectOpen, setBulkRejectOpen] = useState(false);
  const [bulkResult, setBulkResult] = useState<{ verb: 'approved' | 'rejected'; result: BulkResult } | null>(
    null,
  );

  const variables = useMemo(() => toVariables(filters, page, limit, sort), [filters, page, limit, sort]);
  const approvals = useGqlQuery(ApprovalsQuery, variables, { fallback: 'Failed to fetch approvals' });
  const stats = useGqlQuery(ApprovalStatsQuery, {}, { fallback: 'Failed to fetch approval stats' });
  const companies = useGqlQuery(CompanyChoicesQuery, {}, { fallback: 'Failed to fetch companies' });
  const approve = useGqlMutation(ApproveApproval, 'Failed to approve approval');
  const reject = useGqlMutation(RejectApproval, 'Failed to reject approval');
  const remove = useGqlMutation(DeleteApproval, 'Failed to delete approval');
  const bulkApprove = useGqlMutation(BulkApprove, 'Bulk approve failed', BULK_MS);
  const bulkReject = useGqlMutation(BulkReject, 'Bulk reject failed', BULK_MS);
  const { reload: reloadList } = approvals;
  const { reload: reloadStats } = stats;
  const refresh = useCallback(() => {
    reloadList();
    reloadStats();
  }, [reloadList, reloadStats]);

  // Any approval change (another session, a worker, the expiry job) and any company's policy (the
  // rows' Approve buttons and their reasons) re-read the list and its figures together.
  useLive(ApprovalsChanged, { id: null });
  useLive(ApprovalPolicyChanged, { companyId: null });

  const data = approvals.data?.approvals;
  const rows = data?.data;
  useClampPage(page, data && data.data.length === 0 ? data.totalPages : undefined, setPage);
  // Only rows still shown and still PENDING stay selected.
  useEffect(() => {
    if (!rows) return;
    const pending = new Set(rows.filter((a) => a.status === 'PENDING').map((a) => a.id));
    retain((id) => pending.has(id));
  }, [rows, retain]);

  const activeFilters = Boolean(
    filters.search || filters.companyId || filters.status || filters.priority || filters.problem,
  );

  async function approveRow(a: ApprovalRow) {
    setBusyRow(a.id);
    try {
      await approve({ id: a.id, approvedBillIds: a.billIds });
      toast.success('Approval approved successfully');
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to approve approval');
    } finally {
      setBusyRow(null);
    }
  }

  async function rejectRow(a: ApprovalRow) {
    const reason = window.prompt('Please provide a reason for rejection:');
    if (!reason?.trim()) return;
    setBusyRow(a.id);
    try {
      await reject({ id: a.id, rejectionReason: reason.trim() });
      toast.success('Approval rejected successfully');
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to reject approval');
    } finally {
      setBusyRow(null);
    }
  }

  async function deleteRow(a: ApprovalRow) {
    setBusyRow(a.id);
    try {
      await remove({ id: a.id });
      toast.success('Approval deleted successfully');
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to delete approval');
    } finally {
      setBusyRow(null);
    }
  }

  async function regenerateRow(a: ApprovalRow) {
    setBusyRow(a.id);
    await runRegenerate(a.id);
    setBusyRow(null);
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
      const text = bulkSummary(verb, result);
      if (result.failed > 0)
        toast({ variant: 'destructive', title: 'Bulk action finished', description: text });
      else toast.success('Bulk action finished', text);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Bulk action failed');
      throw err;
    } finally {
      setBulkBusy(false);
    }
  }

  const sortBy = (key: string) => setSort((s) => toggleSort(s, key as ApprovalSort['key']));

  const columns = approvalColumns({
    staff,
    busy: (a) => busyRow === a.id || bulkBusy,
    approve: (a) => void approveRow(a),
    reject: (a) => void rejectRow(a),
    remove: (a) => void deleteRow(a),
    regenerate: (a) => void regenerateRow(a),
    view: (a) => navigate(`/approvals/${a.id}`),
  });

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

      <ApprovalStatCards stats={stats.data?.approvalStats} />

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
          <FilterBar id="approval-filters">
            <SearchField
              id="approval-search"
              placeholder="ID, company, vendor, doc #..."
              value={filters.search}
              onSearch={(search) => setFilter({ search })}
            />
            <FilterSelect
              id="approval-company-filter"
              label="Company"
              allLabel="All Companies"
              value={filters.companyId}
              onChange={(companyId) => setFilter({ companyId })}
              options={(companies.data?.companies.data ?? []).map((c) => ({
                value: String(c.id),
                label: c.name,
              }))}
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
            <FilterSelect
              id="approval-problem-filter"
              label="Payment"
              allLabel="All"
              value={filters.problem}
              onChange={(problem) => setFilter({ problem })}
              options={PROBLEM_FILTERS.map((p) => ({ value: p.value, label: p.label }))}
            />
          </FilterBar>
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
            onClick={() =>
              runBulk(
                'approved',
                async () => (await bulkApprove({ ids: [...selected] })).bulkApproveApprovals,
              ).catch(() => {})
            }
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
              {bulkSummary(bulkResult.verb, bulkResult.result)}
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
          <div className={DENSE}>
            <DataList
              rows={rows}
              error={approvals.error}
              onRetry={refresh}
              errorTitle={(e) => `Error loading approvals: ${e.message}`}
              loadingText="Loading approvals..."
              empty={{
                title: 'No approvals found',
                description: activeFilters
                  ? 'No approval matches these filters.'
                  : 'Create one from a company’s bills.',
              }}
              columns={columns}
              rowKey={(a) => a.id}
              rowTestId={(a) => `approval-row-${a.id}`}
              selection={
                staff
                  ? {
                      selected,
                      toggle,
                      setMany,
                      allOf,
                      selectable: (id) => rows?.find((a) => a.id === id)?.status === 'PENDING',
                      label: (id) => `Select approval ${shortId(id)}`,
                      allLabel: 'Select all pending approvals',
                    }
                  : undefined
              }
              sort={sort}
              onSort={sortBy}
            />
          </div>
          {data ? (
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
          ) : null}
        </CardContent>
      </Card>
      <RejectDialog
        open={bulkRejectOpen}
        onOpenChange={setBulkRejectOpen}
        title="Reject Selected Approvals"
        description={`One reason for the ${selected.size} selected approvals; each is rejected on its own.`}
        submitLabel="Reject Selected"
        onSubmit={(reason) =>
          runBulk(
            'rejected',
            async () => (await bulkReject({ ids: [...selected], reason })).bulkRejectApprovals,
          )
        }
      />
    </div>
  );
}

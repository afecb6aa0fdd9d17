// /companies (spec 1 §2 Companies list): filters (search, status, QB status; a change goes back to
// page 1), a table sorted on the loaded page, the row menu, bulk activate/deactivate, the paging
// footer, and live refetch when any session or the refresh job changes a company.
import { Filter, MoreHorizontal, Plus } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { BatchActivationBar } from '../../../components/ui/batch-activation-bar';
import { Button } from '../../../components/ui/button';
import { Card, CardContent } from '../../../components/ui/card';
import { Checkbox } from '../../../components/ui/checkbox';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '../../../components/ui/dropdown-menu';
import { FilterSelect } from '../../../components/ui/filter-select';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { EmptyState, LoadError } from '../../../components/ui/list-states';
import { PaginationFooter } from '../../../components/ui/pagination';
import { LoadingState } from '../../../components/ui/spinner';
import {
  SortableTableHead,
  type SortState,
  sortRows,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from '../../../components/ui/table';
import { toast } from '../../../components/ui/use-toast';
import { useCoalescedRefresh } from '../../../hooks/use-coalesced-refresh';
import { useCompanyChanged } from '../../../hooks/use-company-changed';
import { useLiveResync } from '../../../hooks/use-live-resync';
import { useRowSelection } from '../../../hooks/use-row-selection';
import { useRemote } from '../../../lib/use-remote';
import type { Company } from '../../../types/api';
import { type CompanyFilters, getCompanies, refreshQbToken, setCompanyActive } from '../api/companies';
import { formatDate, qbStatusLabel } from '../utils/company-rules';
import { CompanyStatusBadge, QbStatusBadge } from './company-badges';
import { DeleteCompanyDialog } from './delete-company-dialog';

type SortKey = 'name' | 'email' | 'status' | 'qbStatus' | 'industry' | 'createdAt';

function sortValue(c: Company, key: SortKey): unknown {
  if (key === 'qbStatus') return qbStatusLabel(c);
  return c[key];
}

export function CompaniesPage() {
  const navigate = useNavigate();
  const location = useLocation();
  // The detail page's quick action carries the company's name as the search.
  const initialSearch = (location.state as { search?: string } | null)?.search ?? '';
  const [showFilters, setShowFilters] = useState(initialSearch !== '');
  const [searchText, setSearchText] = useState(initialSearch);
  const [filters, setFilters] = useState<CompanyFilters>({
    search: initialSearch,
    status: '',
    qbConnectionStatus: '',
  });
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<SortState<SortKey>>(null);
  const { selected, toggle, setMany, clear: clearSelection, allOf } = useRowSelection<number>();
  const [deleting, setDeleting] = useState<Company | null>(null);
  const list = useRemote((signal) => getCompanies(filters, page, signal), [filters, page]);

  const setFilter = (patch: Partial<CompanyFilters>) => {
    setFilters((f) => ({ ...f, ...patch }));
    setPage(1);
    clearSelection();
  };
  // Typing settles for 300 ms before the search goes out.
  useEffect(() => {
    if (searchText === filters.search) return;
    const t = setTimeout(() => setFilter({ search: searchText }), 300);
    return () => clearTimeout(t);
  });

  const refresh = useCallback(() => list.reload(), [list.reload]);
  useCompanyChanged(null, useCoalescedRefresh(refresh));
  useLiveResync(refresh);

  const data = list.data;
  // The server answers newest first (createdAt descending); a column sort reorders the loaded page.
  const rows = sortRows(data?.data ?? [], sort, sortValue);
  useEffect(() => {
    if (data && data.data.length === 0 && page > 1 && data.totalPages < page) setPage(data.totalPages);
  }, [data, page]);

  const pageIds = rows.map((c) => c.id);
  const allSelected = allOf(pageIds);

  async function toggleActive(c: Company) {
    try {
      const res = await setCompanyActive(c.id, !c.isActive);
      toast.success(
        res.message ?? (c.isActive ? 'Company deactivated successfully' : 'Company activated successfully'),
      );
      refresh();
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'An error occurred');
    }
  }

  async function refreshToken(c: Company) {
    try {
      const res = await refreshQbToken(c.id);
      toast.success(res.message ?? 'QuickBooks token refreshed successfully');
      refresh();
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'An error occurred');
    }
  }

  const head = (key: SortKey, label: string) => (
    <SortableTableHead sortKey={key} sort={sort} onSortChange={setSort}>
      {label}
    </SortableTableHead>
  );

  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Companies"
        description="Manage company accounts and settings"
        actions={
          <>
            <Button
              variant="outline"
              size="sm"
              aria-expanded={showFilters}
              aria-controls="company-filters"
              onClick={() => setShowFilters((s) => !s)}
            >
              <Filter aria-hidden="true" />
              Filters
            </Button>
            <Button size="sm" asChild>
              <Link to="/companies/new">
                <Plus aria-hidden="true" />
                Add Company
              </Link>
            </Button>
          </>
        }
      />
      {showFilters ? (
        <Card id="company-filters" className="py-4">
          <CardContent className="grid gap-4 sm:grid-cols-3">
            <div className="grid gap-2">
              <Label htmlFor="company-search">Search</Label>
              <Input
                id="company-search"
                type="search"
                placeholder="Search companies..."
                value={searchText}
                maxLength={255}
                onChange={(e) => setSearchText(e.target.value)}
              />
            </div>
            <FilterSelect
              id="company-status-filter"
              label="Status"
              allLabel="All statuses"
              value={filters.status}
              onChange={(status) => setFilter({ status })}
              options={[
                { value: 'ACTIVE', label: 'Active' },
                { value: 'INACTIVE', label: 'Inactive' },
                { value: 'SUSPENDED', label: 'Suspended' },
              ]}
            />
            <FilterSelect
              id="company-qb-filter"
              label="QB Status"
              allLabel="All connections"
              value={filters.qbConnectionStatus}
              onChange={(qbConnectionStatus) => setFilter({ qbConnectionStatus })}
              options={[
                { value: 'connected', label: 'Connected' },
                { value: 'disconnected', label: 'Disconnected' },
                { value: 'error', label: 'Error' },
                { value: 'not_connected', label: 'Not Connected' },
              ]}
            />
          </CardContent>
        </Card>
      ) : null}
      <Card className="gap-0 py-0">
        <CardContent className="px-0">
          <BatchActivationBar
            selected={rows.filter((c) => selected.has(c.id))}
            noun="companies"
            setActive={(c, active) => setCompanyActive(c.id, active)}
            describe={(c) => c.name}
            onClear={() => clearSelection()}
            onFinished={() => {
              clearSelection();
              refresh();
            }}
          />
          {list.error && !data ? (
            <LoadError title={`Error loading companies: ${list.error.message}`} onRetry={list.reload} />
          ) : !data ? (
            <LoadingState text="Loading companies..." />
          ) : rows.length === 0 ? (
            <EmptyState title="No companies found" description="Get started by creating your first company" />
          ) : (
            <>
              <Table>
                <TableHeader>
                  <TableRow>
                    <TableHead className="w-10 pl-4">
                      <Checkbox
                        aria-label="Select all companies on this page"
                        checked={allSelected}
                        onChange={(e) => setMany(pageIds, e.target.checked)}
                      />
                    </TableHead>
                    {head('name', 'Name')}
                    {head('email', 'Email')}
                    {head('status', 'Status')}
                    {head('qbStatus', 'QB Status')}
                    {head('industry', 'Industry')}
                    {head('createdAt', 'Created')}
                    <TableHead className="w-12 pr-4 text-right">Actions</TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {rows.map((c) => (
                    <TableRow
                      key={c.id}
                      data-testid={`company-row-${c.id}`}
                      data-state={selected.has(c.id) ? 'selected' : undefined}
                    >
                      <TableCell className="pl-4">
                        <Checkbox
                          aria-label={`Select ${c.name}`}
                          checked={selected.has(c.id)}
                          onChange={(e) => toggle(c.id, e.target.checked)}
                        />
                      </TableCell>
                      <TableCell>
                        <Link to={`/companies/${c.id}`} className="font-medium hover:underline">
                          {c.name}
                        </Link>
                      </TableCell>
                      <TableCell>{c.email || 'N/A'}</TableCell>
                      <TableCell>
                        <CompanyStatusBadge status={c.status} />
                      </TableCell>
                      <TableCell>
                        <QbStatusBadge company={c} />
                      </TableCell>
                      <TableCell>{c.industry || 'N/A'}</TableCell>
                      <TableCell>{formatDate(c.createdAt)}</TableCell>
                      <TableCell className="pr-4 text-right">
                        <DropdownMenu>
                          <DropdownMenuTrigger asChild>
                            <Button variant="ghost" size="icon" aria-label={`Actions for ${c.name}`}>
                              <MoreHorizontal aria-hidden="true" />
                            </Button>
                          </DropdownMenuTrigger>
                          <DropdownMenuContent align="end">
                            <DropdownMenuItem onSelect={() => navigate(`/companies/${c.id}`)}>
                              View
                            </DropdownMenuItem>
                            <DropdownMenuItem onSelect={() => navigate(`/companies/${c.id}/edit`)}>
                              Edit
                            </DropdownMenuItem>
                            {c.qbRealmId ? (
                              <DropdownMenuItem onSelect={() => refreshToken(c)}>
                                Refresh QB Token
                              </DropdownMenuItem>
                            ) : null}
                            <DropdownMenuItem onSelect={() => toggleActive(c)}>
                              {c.isActive ? 'Deactivate' : 'Activate'}
                            </DropdownMenuItem>
                            <DropdownMenuSeparator />
                            <DropdownMenuItem variant="destructive" onSelect={() => setDeleting(c)}>
                              Delete
                            </DropdownMenuItem>
                          </DropdownMenuContent>
                        </DropdownMenu>
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
              <PaginationFooter
                className="border-t px-4"
                pagination={{ page, limit: data.limit, total: data.total, totalPages: data.totalPages }}
                noun="companies"
                onPageChange={(p) => {
                  setPage(p);
                  clearSelection();
                }}
              />
            </>
          )}
        </CardContent>
      </Card>
      <DeleteCompanyDialog
        company={deleting}
        onOpenChange={(open) => !open && setDeleting(null)}
        onDeleted={() => refresh()}
      />
    </div>
  );
}

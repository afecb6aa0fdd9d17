// /companies: filters (search, status, QB status; a change goes back to
// page 1), a table sorted on the loaded page, the row menu, bulk activate/deactivate, the paging
// footer, and live refetch when any session or the refresh job changes a company.
import { Filter, Plus } from 'lucide-react';
import { useCallback, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { BatchActivationBar } from '../../../components/ui/batch-activation-bar';
import { Button } from '../../../components/ui/button';
import { Card, CardContent } from '../../../components/ui/card';
import { type Column, DataList } from '../../../components/ui/data-list';
import { FilterSelect } from '../../../components/ui/filter-select';
import { FilterBar, SearchField, useClampPage, useListState } from '../../../components/ui/list-filters';
import { nextSort, type SortState, sortRows } from '../../../components/ui/table';
import { toast } from '../../../components/ui/use-toast';
import { CompaniesChanged } from '../../../hooks/use-company-changed';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { useLive } from '../../../hooks/use-live';
import { useRowSelection } from '../../../hooks/use-row-selection';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import {
  COMPANY_MESSAGES,
  CompaniesQuery,
  type Company,
  type CompanyStatus,
  RefreshQbToken,
  useSetCompanyActive,
} from '../api/companies';
import { COMPANIES_PAGE_SIZE, formatDate, qbStatusLabel } from '../utils/company-rules';
import { CompanyStatusBadge, QbStatusBadge } from './company-badges';
import { DeleteCompanyDialog } from './delete-company-dialog';

type SortKey = 'name' | 'email' | 'status' | 'qbStatus' | 'industry' | 'createdAt';

function sortValue(c: Company, key: SortKey): unknown {
  if (key === 'qbStatus') return qbStatusLabel(c);
  return c[key];
}

const COLUMNS: Column<Company>[] = [
  {
    id: 'name',
    header: 'Name',
    sortKey: 'name',
    cell: (c) => (
      <Link to={`/companies/${c.id}`} className="font-medium hover:underline">
        {c.name}
      </Link>
    ),
  },
  { id: 'email', header: 'Email', sortKey: 'email', cell: (c) => c.email || 'N/A' },
  {
    id: 'status',
    header: 'Status',
    sortKey: 'status',
    cell: (c) => <CompanyStatusBadge status={c.status} />,
  },
  { id: 'qbStatus', header: 'QB Status', sortKey: 'qbStatus', cell: (c) => <QbStatusBadge company={c} /> },
  { id: 'industry', header: 'Industry', sortKey: 'industry', cell: (c) => c.industry || 'N/A' },
  { id: 'createdAt', header: 'Created', sortKey: 'createdAt', cell: (c) => formatDate(c.createdAt) },
];

const NO_FILTERS = {
  search: '',
  status: '' as '' | CompanyStatus,
  qbConnectionStatus: '' as '' | 'connected' | 'disconnected' | 'error' | 'not_connected',
};

export function CompaniesPage() {
  useDocumentTitle('Companies');
  const navigate = useNavigate();
  const location = useLocation();
  // The detail page's quick action carries the company's name as the search.
  const initialSearch = (location.state as { search?: string } | null)?.search ?? '';
  const [showFilters, setShowFilters] = useState(initialSearch !== '');
  const list = useListState({ ...NO_FILTERS, search: initialSearch });
  const { page, setPage, filters } = list;
  const [sort, setSort] = useState<SortState<SortKey>>(null);
  const selection = useRowSelection<number>();
  const { selected, clear: clearSelection } = selection;
  const [deleting, setDeleting] = useState<Company | null>(null);
  const companies = useGqlQuery(
    CompaniesQuery,
    {
      search: filters.search.trim() || null,
      status: filters.status || null,
      qbConnectionStatus: filters.qbConnectionStatus || null,
      page,
      limit: COMPANIES_PAGE_SIZE,
    },
    { fallback: 'Failed to fetch companies' },
  );
  const setCompanyActive = useSetCompanyActive();
  const refreshQbToken = useGqlMutation(RefreshQbToken, 'Failed to refresh QuickBooks token');

  const setFilter = useCallback(
    (patch: Partial<typeof NO_FILTERS>) => {
      list.setFilter(patch);
      clearSelection();
    },
    [list.setFilter, clearSelection],
  );

  // Changes from any session or the refresh job re-read the page through the cache.
  useLive(CompaniesChanged, { id: null });

  const data = companies.data?.companies;
  // The server answers newest first (createdAt descending); a column sort reorders the loaded page.
  const rows = data ? sortRows(data.data, sort, sortValue) : undefined;
  useClampPage(page, data && data.data.length === 0 ? data.totalPages : undefined, setPage);

  async function toggleActive(c: Company) {
    try {
      toast.success(await setCompanyActive(c.id, !c.isActive));
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'An error occurred');
    }
  }

  async function refreshToken(c: Company) {
    try {
      await refreshQbToken({ companyId: c.id });
      toast.success(COMPANY_MESSAGES.tokenRefreshed);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'An error occurred');
    }
  }

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
        <FilterBar id="company-filters" className="sm:grid-cols-3 lg:grid-cols-3">
          <SearchField
            id="company-search"
            placeholder="Search companies..."
            value={filters.search}
            onSearch={(search) => setFilter({ search })}
          />
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
        </FilterBar>
      ) : null}
      <Card className="gap-0 py-0">
        <CardContent className="px-0">
          <BatchActivationBar
            selected={(rows ?? []).filter((c) => selected.has(c.id))}
            noun="companies"
            setActive={(c, active) => setCompanyActive(c.id, active)}
            describe={(c) => c.name}
            onClear={() => clearSelection()}
            onFinished={() => clearSelection()}
          />
          <DataList
            rows={rows}
            error={companies.error}
            onRetry={companies.reload}
            errorTitle={(e) => `Error loading companies: ${e.message}`}
            loadingText="Loading companies..."
            empty={{ title: 'No companies found', description: 'Get started by creating your first company' }}
            columns={COLUMNS}
            rowKey={(c) => c.id}
            rowTestId={(c) => `company-row-${c.id}`}
            selection={{
              ...selection,
              label: (id) => `Select ${rows?.find((c) => c.id === id)?.name ?? ''}`,
              allLabel: 'Select all companies on this page',
            }}
            sort={sort}
            onSort={(key) => setSort((s) => nextSort(s, key as SortKey))}
            actionsLabel={(c) => `Actions for ${c.name}`}
            rowActions={(c) => [
              { label: 'View', onSelect: () => navigate(`/companies/${c.id}`) },
              { label: 'Edit', onSelect: () => navigate(`/companies/${c.id}/edit`) },
              c.qbRealmId ? { label: 'Refresh QB Token', onSelect: () => void refreshToken(c) } : null,
              { label: c.isActive ? 'Deactivate' : 'Activate', onSelect: () => void toggleActive(c) },
              { label: 'Delete', destructive: true, separated: true, onSelect: () => setDeleting(c) },
            ]}
            paging={{
              info: data,
              noun: 'companies',
              onPageChange: (p) => {
                setPage(p);
                clearSelection();
              },
            }}
          />
        </CardContent>
      </Card>
      <DeleteCompanyDialog company={deleting} onOpenChange={(open) => !open && setDeleting(null)} />
    </div>
  );
}

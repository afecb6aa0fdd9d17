// /vendors (spec 2 §2 Vendors): 20 a page with filters search, company, has banking and active; sync
// from QuickBooks with a live progress bar, CSV export and import. Live: changes refetch the page.
import { Download, Pencil, RefreshCw, Upload } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { Card, CardContent } from '../../../components/ui/card';
import { DateTimeStack } from '../../../components/ui/date-time-stack';
import { FilterSelect } from '../../../components/ui/filter-select';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { EmptyState, LoadError } from '../../../components/ui/list-states';
import { PaginationFooter } from '../../../components/ui/pagination';
import { LoadingState } from '../../../components/ui/spinner';
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '../../../components/ui/table';
import { toast } from '../../../components/ui/use-toast';
import { useCoalescedRefresh } from '../../../hooks/use-coalesced-refresh';
import { useLiveResync } from '../../../hooks/use-live-resync';
import { useVendorChanged } from '../../../hooks/use-vendor-changed';
import { useRemote } from '../../../lib/use-remote';
import { exportVendors, getCompanyChoices, getVendors, type VendorFilters } from '../api/vendors';
import { accountTypeLabel } from '../utils/vendor-rules';
import { ImportVendorsDialog } from './import-vendors-dialog';
import { SyncVendorsDialog } from './sync-vendors-dialog';
import { BankingBadge, VendorStatusBadge } from './vendor-badges';

const EMPTY: VendorFilters = { search: '', companyId: '', hasBanking: '', active: '' };

export function VendorsPage() {
  const [filters, setFilters] = useState<VendorFilters>(EMPTY);
  const [searchText, setSearchText] = useState('');
  const [page, setPage] = useState(1);
  const [syncOpen, setSyncOpen] = useState(false);
  const [importOpen, setImportOpen] = useState(false);
  const [exporting, setExporting] = useState(false);
  const list = useRemote((signal) => getVendors(filters, page, signal), [filters, page]);
  const companies = useRemote((signal) => getCompanyChoices(signal), []);
  const refresh = list.reload;

  const setFilter = (patch: Partial<VendorFilters>) => {
    setFilters((f) => ({ ...f, ...patch }));
    setPage(1);
  };
  // Typing settles for 300 ms before the search goes out.
  useEffect(() => {
    if (searchText === filters.search) return;
    const t = setTimeout(() => setFilter({ search: searchText }), 300);
    return () => clearTimeout(t);
  });

  // A sync or an import changes many vendors at once: at most one refetch per half second.
  useVendorChanged(null, useCoalescedRefresh(refresh, 500));
  useLiveResync(refresh);

  const data = list.data;
  const rows = data?.data ?? [];
  useEffect(() => {
    if (data && data.data.length === 0 && page > 1 && data.totalPages < page)
      setPage(Math.max(1, data.totalPages));
  }, [data, page]);

  async function exportCsv() {
    setExporting(true);
    try {
      // The export follows the company filter; inactive vendors come along unless only active ones are shown.
      const name = await exportVendors(filters.companyId, filters.active !== 'true');
      toast.success('Download started', name);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to export vendor data', 'Export failed');
    } finally {
      setExporting(false);
    }
  }

  const filtered = filters.search || filters.companyId || filters.hasBanking || filters.active;
  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Vendors"
        description="Vendors synced from QuickBooks and the bank details Billflow keeps for ACH"
        actions={
          <>
            <Button variant="outline" onClick={() => setSyncOpen(true)}>
              <RefreshCw aria-hidden="true" />
              Sync from QuickBooks
            </Button>
            <Button variant="outline" onClick={exportCsv} disabled={exporting}>
              <Download aria-hidden="true" />
              {exporting ? 'Exporting…' : 'Export CSV'}
            </Button>
            <Button onClick={() => setImportOpen(true)}>
              <Upload aria-hidden="true" />
              Import CSV
            </Button>
          </>
        }
      />
      <Card className="py-4">
        <CardContent className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <div className="grid gap-2">
            <Label htmlFor="vendor-search">Search</Label>
            <Input
              id="vendor-search"
              type="search"
              placeholder="Name or e-mail..."
              value={searchText}
              maxLength={255}
              onChange={(e) => setSearchText(e.target.value)}
            />
          </div>
          <FilterSelect
            id="vendor-company-filter"
            label="Company"
            allLabel="All companies"
            value={filters.companyId}
            onChange={(companyId) => setFilter({ companyId })}
            options={(companies.data ?? []).map((c) => ({ value: String(c.id), label: c.name }))}
          />
          <FilterSelect
            id="vendor-banking-filter"
            label="Banking"
            allLabel="All vendors"
            value={filters.hasBanking}
            onChange={(hasBanking) => setFilter({ hasBanking })}
            options={[
              { value: 'true', label: 'Has banking' },
              { value: 'false', label: 'Missing banking' },
            ]}
          />
          <FilterSelect
            id="vendor-active-filter"
            label="Status"
            allLabel="Active and inactive"
            value={filters.active}
            onChange={(active) => setFilter({ active })}
            options={[
              { value: 'true', label: 'Active' },
              { value: 'false', label: 'Inactive' },
            ]}
          />
        </CardContent>
      </Card>
      <Card className="gap-0 py-0">
        <CardContent className="px-0">
          {list.error && !data ? (
            <LoadError
              title="Failed to load vendors"
              detail={list.error.message}
              retryLabel="Try Again"
              onRetry={list.reload}
            />
          ) : !data ? (
            <LoadingState text="Loading vendors..." />
          ) : rows.length === 0 ? (
            <EmptyState
              title="No vendors found"
              description={
                filtered
                  ? 'No vendor matches these filters.'
                  : 'Sync a connected company from QuickBooks to bring its vendors in.'
              }
            />
          ) : (
            <>
              <Table>
                <TableHeader>
                  <TableRow>
                    <TableHead className="pl-4">Vendor</TableHead>
                    <TableHead>Company</TableHead>
                    <TableHead>Banking</TableHead>
                    <TableHead>Account</TableHead>
                    <TableHead>Status</TableHead>
                    <TableHead>Synced</TableHead>
                    <TableHead className="w-12 pr-4 text-right">
                      <span className="sr-only">Actions</span>
                    </TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {rows.map((v) => (
                    <TableRow key={v.id} data-testid={`vendor-row-${v.id}`}>
                      <TableCell className="pl-4">
                        <Link to={`/vendors/${v.id}`} className="font-medium hover:underline">
                          {v.name}
                        </Link>
                        {/* Bounded, so a long address is cut rather than widening the table. */}
                        <p className="max-w-56 truncate text-xs text-muted-foreground">
                          {[v.email, v.phone].filter(Boolean).join(' · ') || 'No contact info'}
                        </p>
                      </TableCell>
                      <TableCell className="min-w-24 whitespace-normal">
                        {v.companyName ?? `Company ${v.companyId}`}
                      </TableCell>
                      <TableCell>
                        <BankingBadge ready={v.hasBankingInfo} />
                      </TableCell>
                      <TableCell className="min-w-36 text-xs whitespace-normal">
                        {v.hasBankingInfo ? (
                          // The bank over the account: on one line the column outgrew a 1280-pixel screen.
                          <>
                            {v.bankName ? <span className="block">{v.bankName}</span> : null}
                            <span className="block font-mono whitespace-nowrap">
                              {accountTypeLabel(v.accountType)} {v.accountNumber}
                            </span>
                          </>
                        ) : (
                          <span className="font-sans text-muted-foreground">—</span>
                        )}
                      </TableCell>
                      <TableCell>
                        <VendorStatusBadge active={v.active} />
                      </TableCell>
                      <TableCell className="text-sm">
                        <DateTimeStack iso={v.qbSyncedAt} empty="" />
                      </TableCell>
                      <TableCell className="pr-4 text-right">
                        <Button variant="ghost" size="icon" asChild>
                          <Link to={`/vendors/${v.id}/edit-banking`} aria-label={`Edit banking of ${v.name}`}>
                            <Pencil aria-hidden="true" />
                          </Link>
                        </Button>
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
              <PaginationFooter
                className="border-t"
                noun="vendors"
                pagination={{
                  page: data.page,
                  limit: data.limit,
                  total: data.total,
                  totalPages: data.totalPages,
                }}
                onPageChange={setPage}
              />
            </>
          )}
        </CardContent>
      </Card>
      <SyncVendorsDialog
        open={syncOpen}
        onOpenChange={setSyncOpen}
        companies={companies.data ?? []}
        initialCompanyId={filters.companyId}
        onSynced={refresh}
      />
      <ImportVendorsDialog open={importOpen} onOpenChange={setImportOpen} onImported={refresh} />
    </div>
  );
}

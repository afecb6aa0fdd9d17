// /vendors: 20 a page with filters search, company, has banking and active; sync
// from QuickBooks with a live progress bar, CSV export and import. Live: changes refetch the page.
import { Download, KeyRound, Pencil, RefreshCw, Upload } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { Card, CardContent } from '../../../components/ui/card';
import { ConfirmActionDialog } from '../../../components/ui/confirm-action-dialog';
import { type Column, DataList } from '../../../components/ui/data-list';
import { DateTimeStack } from '../../../components/ui/date-time-stack';
import { FilterSelect } from '../../../components/ui/filter-select';
import { FilterBar, SearchField, useClampPage, useListState } from '../../../components/ui/list-filters';
import { LoadError } from '../../../components/ui/list-states';
import { toast } from '../../../components/ui/use-toast';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { useLive } from '../../../hooks/use-live';
import { VendorsChanged } from '../../../hooks/use-vendor-changed';
import { useSession } from '../../../lib/auth';
import { useGqlQuery } from '../../../lib/use-graphql';
import { CompanyChoicesQuery, exportVendors, type Vendor, VendorsQuery } from '../api/vendors';
import { accountTypeLabel, VENDORS_PAGE_SIZE } from '../utils/vendor-rules';
import { ImportVendorsDialog } from './import-vendors-dialog';
import { SyncVendorsDialog } from './sync-vendors-dialog';
import { BankingBadge, BankingBlockNotice, VendorStatusBadge } from './vendor-badges';

const NO_FILTERS = {
  search: '',
  companyId: '',
  /** '' all, 'true' with banking, 'false' without. */
  hasBanking: '',
  active: '',
};

const flag = (v: string) => (v === '' ? null : v === 'true');

const COLUMNS: Column<Vendor>[] = [
  {
    id: 'vendor',
    header: 'Vendor',
    cell: (v) => (
      <>
        <Link to={`/vendors/${v.id}`} className="font-medium hover:underline">
          {v.name}
        </Link>
        {/* Bounded, so a long address is cut rather than widening the table. */}
        <p className="max-w-56 truncate text-xs text-muted-foreground">
          {[v.email, v.phone].filter(Boolean).join(' · ') || 'No contact info'}
        </p>
      </>
    ),
  },
  {
    id: 'company',
    header: 'Company',
    className: 'min-w-24 whitespace-normal',
    cell: (v) => v.companyName ?? `Company ${v.companyId}`,
  },
  {
    id: 'banking',
    header: 'Banking',
    cell: (v) => (
      <>
        <BankingBadge ready={v.hasBankingInfo} />
        <BankingBlockNotice block={v.bankingBlock} compact />
      </>
    ),
  },
  {
    id: 'account',
    header: 'Account',
    className: 'min-w-36 text-xs whitespace-normal',
    cell: (v) =>
      v.hasBankingInfo ? (
        // The bank over the account: on one line the column outgrew a 1280-pixel screen.
        <>
          {v.bankName ? <span className="block">{v.bankName}</span> : null}
          <span className="block font-mono whitespace-nowrap">
            {accountTypeLabel(v.accountType)} {v.accountNumber}
          </span>
        </>
      ) : (
        <span className="font-sans text-muted-foreground">—</span>
      ),
  },
  { id: 'status', header: 'Status', cell: (v) => <VendorStatusBadge active={v.active} /> },
  {
    id: 'synced',
    header: 'Synced',
    className: 'text-sm',
    cell: (v) => <DateTimeStack iso={v.qbSyncedAt} empty="" />,
  },
  {
    // The pencil names itself per row ("Edit banking of …"); the column needs no visible heading.
    id: 'edit',
    header: '',
    className: 'w-12 pr-4 text-right',
    cell: (v) => (
      <Button variant="ghost" size="icon" asChild>
        <Link to={`/vendors/${v.id}/edit-banking`} aria-label={`Edit banking of ${v.name}`}>
          <Pencil aria-hidden="true" />
        </Link>
      </Button>
    ),
  },
];

export function VendorsPage() {
  useDocumentTitle('Vendors');
  const list = useListState(NO_FILTERS);
  const { filters, page, setPage, setFilter } = list;
  const [syncOpen, setSyncOpen] = useState(false);
  const [importOpen, setImportOpen] = useState(false);
  const [exporting, setExporting] = useState(false);
  const [fullExportOpen, setFullExportOpen] = useState(false);
  // The full numbers are exported by an ADMIN only (the server refuses anyone else).
  const isAdmin = useSession().user?.role === 'ADMIN';
  const vendors = useGqlQuery(
    VendorsQuery,
    {
      search: filters.search.trim() || null,
      companyId: filters.companyId ? Number(filters.companyId) : null,
      hasBanking: flag(filters.hasBanking),
      active: flag(filters.active),
      page,
      limit: VENDORS_PAGE_SIZE,
    },
    { fallback: 'Failed to load vendors' },
  );
  const companies = useGqlQuery(
    CompanyChoicesQuery,
    { limit: 1000 },
    { fallback: 'Failed to fetch companies' },
  );
  const companyChoices = companies.data?.companies.data ?? [];

  // Changes from any session, a sync or an import re-read the page through the cache (a burst of
  // pushes costs at most two reads, lib/document-cache.ts).
  useLive(VendorsChanged, { id: null });

  const data = vendors.data?.vendors;
  useClampPage(page, data && data.data.length === 0 ? data.totalPages : undefined, setPage);

  // The export follows the company filter; inactive vendors come along unless only active ones are shown.
  const includeInactive = filters.active !== 'true';
  const exportScope = filters.companyId
    ? (companyChoices.find((c) => String(c.id) === filters.companyId)?.name ?? 'the chosen company')
    : 'every company';

  async function exportCsv() {
    setExporting(true);
    try {
      const name = await exportVendors(filters.companyId, includeInactive);
      toast.success('Download started', name);
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'Failed to export vendor data', 'Export failed');
    } finally {
      setExporting(false);
    }
  }

  const filtered = list.active;
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
            {isAdmin ? (
              <Button variant="outline" onClick={() => setFullExportOpen(true)}>
                <KeyRound aria-hidden="true" />
                Export with full numbers
              </Button>
            ) : null}
            <Button onClick={() => setImportOpen(true)}>
              <Upload aria-hidden="true" />
              Import CSV
            </Button>
          </>
        }
      />
      <FilterBar>
        <SearchField
          id="vendor-search"
          placeholder="Name or e-mail..."
          value={filters.search}
          onSearch={(search) => setFilter({ search })}
        />
        <FilterSelect
          id="vendor-company-filter"
          label="Company"
          allLabel="All companies"
          value={filters.companyId}
          onChange={(companyId) => setFilter({ companyId })}
          options={companyChoices.map((c) => ({ value: String(c.id), label: c.name }))}
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
      </FilterBar>
      <Card className="gap-0 py-0">
        <CardContent className="px-0">
          {vendors.error && !data ? (
            <LoadError
              title="Failed to load vendors"
              detail={vendors.error.message}
              retryLabel="Try Again"
              onRetry={vendors.reload}
            />
          ) : (
            <DataList
              rows={data?.data}
              errorTitle={() => 'Failed to load vendors'}
              loadingText="Loading vendors..."
              empty={{
                title: 'No vendors found',
                description: filtered
                  ? 'No vendor matches these filters.'
                  : 'Sync a connected company from QuickBooks to bring its vendors in.',
              }}
              columns={COLUMNS}
              rowKey={(v) => v.id}
              rowTestId={(v) => `vendor-row-${v.id}`}
              paging={{ info: data, noun: 'vendors', onPageChange: setPage }}
            />
          )}
        </CardContent>
      </Card>
      <SyncVendorsDialog
        open={syncOpen}
        onOpenChange={setSyncOpen}
        companies={companyChoices}
        initialCompanyId={filters.companyId}
        onSynced={vendors.reload}
      />
      <ImportVendorsDialog open={importOpen} onOpenChange={setImportOpen} onImported={vendors.reload} />
      <ConfirmActionDialog
        open={fullExportOpen}
        onOpenChange={setFullExportOpen}
        title="Export with full numbers?"
        description={`The file will hold the full routing and account numbers of the vendors of ${exportScope}${includeInactive ? ', active and inactive' : ', active only'}, and an import reads it back as it is. The export is recorded in each of those vendors' history (who and when, never the numbers). Keep the file safe and delete it once done.`}
        actionLabel="Export"
        busyLabel="Exporting…"
        run={async () => {
          await exportVendors(filters.companyId, includeInactive, true);
          return {};
        }}
        successMessage="Download started"
        errorTitle="Export failed"
        errorFallback="Failed to export vendor data"
      />
    </div>
  );
}

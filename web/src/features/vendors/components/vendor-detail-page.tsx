// /vendors/{id}: contact, company, banking masked by default with the
// unmask control and its banner for ADMIN and MODERATOR, a held change of the bank details with who
// must act on it, every bank detail change, whether it is mailed a remittance advice, and the
// vendor's history (unmasks included). Live: another session's change reloads the vendor, masked again.
import { ArrowLeft, Eye, EyeOff, Pencil, RefreshCw, ShieldAlert, Trash2, UserX } from 'lucide-react';
import { type ReactNode, useEffect, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useClient } from 'urql';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { LoadingState } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/use-toast';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { useVendorChanged } from '../../../hooks/use-vendor-changed';
import { useSession } from '../../../lib/auth';
import { toApiError } from '../../../lib/graphql-errors';
import { useGqlQuery } from '../../../lib/use-graphql';
import { type VendorDetail, VendorHistoryQuery, VendorQuery } from '../api/vendors';
import { accountTypeLabel, formatDateTime } from '../utils/vendor-rules';
import { BankingChangesCard } from './banking-changes-card';
import { ClearBankingDialog } from './clear-banking-dialog';
import { ForgetVendorDialog } from './forget-vendor-dialog';
import { PendingBankingChange } from './pending-banking-change';
import { RemittanceAdviceSetting } from './remittance-advice-setting';
import { BankingBadge, BankingBlockNotice, VendorStatusBadge } from './vendor-badges';
import { isNotFound, VendorNotFound } from './vendor-not-found';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-0.5">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="text-sm [overflow-wrap:anywhere]">
        {children || <span className="text-muted-foreground">N/A</span>}
      </dd>
    </div>
  );
}

export function VendorDetailPage() {
  const { id = '' } = useParams();
  const valid = /^\d+$/.test(id);
  const role = useSession().user?.role;
  const mayUnmask = role === 'ADMIN' || role === 'MODERATOR';
  const vendorQuery = useGqlQuery(
    VendorQuery,
    { id: Number(id) },
    { pause: !valid, fallback: 'Vendor not found' },
  );
  const historyQuery = useGqlQuery(VendorHistoryQuery, { id: Number(id) }, { pause: !valid });
  const history = {
    data: historyQuery.data?.vendorHistory,
    error: historyQuery.error,
    reload: historyQuery.reload,
  };
  // The unmasked vendor: read once per Show Full Numbers (each read is recorded on the vendor's
  // history), never by a push's re-read, so it is not a watched query.
  const client = useClient();
  const [revealed, setRevealed] = useState<VendorDetail | null>(null);
  const [revealing, setRevealing] = useState(false);
  const unmasked = revealed !== null;
  async function toggleUnmasked() {
    if (unmasked) {
      setRevealed(null);
      return;
    }
    setRevealing(true);
    const answer = await client
      .query(VendorQuery, { id: Number(id), showUnmasked: true }, { requestPolicy: 'network-only' })
      .toPromise();
    setRevealing(false);
    if (answer.error) toast.error(toApiError(answer.error, 'Vendor not found').message);
    else if (answer.data) setRevealed(answer.data.vendor);
  }
  const vendor = {
    data: revealed ?? vendorQuery.data?.vendor,
    error: vendorQuery.error,
    reload: vendorQuery.reload,
  };
  const [clearing, setClearing] = useState(false);
  const [forgetting, setForgetting] = useState(false);

  // An unmask is itself an event of the vendor (the read model does not change, so no notice comes
  // for it); a change by anyone re-reads the history and the vendor through the cache, masked again.
  useVendorChanged(valid ? Number(id) : null, () => setRevealed(null), { pause: !valid });

  const v = vendor.data;
  useDocumentTitle(v ? v.name : 'Vendor');
  // Each unmasked read is recorded on the vendor's stream: show that entry as soon as it exists.
  const reloadHistory = history.reload;
  useEffect(() => {
    if (v?.isUnmasked) reloadHistory();
  }, [v, reloadHistory]);
  const contact = [v?.email, v?.phone].filter(Boolean);
  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Vendor Details"
        description={v ? v.name : undefined}
        actions={
          <>
            {role === 'ADMIN' && v ? (
              <Button variant="outline" size="sm" onClick={() => setForgetting(true)}>
                <UserX aria-hidden="true" />
                Forget Vendor
              </Button>
            ) : null}
            <Button variant="outline" size="sm" asChild>
              <Link to="/vendors">
                <ArrowLeft aria-hidden="true" />
                Back to Vendors
              </Link>
            </Button>
          </>
        }
      />
      {isNotFound(vendor.error, valid) ? (
        <VendorNotFound />
      ) : vendor.error && !v ? (
        <div role="alert" className="flex flex-col items-center gap-3 py-12 text-center">
          <p className="text-sm text-destructive">Error loading vendor: {vendor.error.message}</p>
          <Button variant="outline" size="sm" onClick={vendor.reload}>
            <RefreshCw aria-hidden="true" />
            Retry
          </Button>
        </div>
      ) : !v ? (
        <LoadingState text="Loading vendor..." />
      ) : (
        <>
          <div className="grid gap-6 lg:grid-cols-2">
            <Card>
              <CardHeader>
                <CardTitle as="h2">{v.name}</CardTitle>
                <CardDescription>
                  <VendorStatusBadge active={v.active} />
                </CardDescription>
              </CardHeader>
              <CardContent>
                <dl className="grid gap-4 sm:grid-cols-2">
                  <Field label="Contact">
                    {contact.length ? (
                      contact.map((c) => <div key={c}>{c}</div>)
                    ) : (
                      <span className="text-muted-foreground">No contact info</span>
                    )}
                  </Field>
                  <Field label="Company">
                    <Link to={`/companies/${v.companyId}`} className="hover:underline">
                      {v.companyName ?? `Company ${v.companyId}`}
                    </Link>
                  </Field>
                  <Field label="QuickBooks Vendor ID">{v.qbVendorId}</Field>
                  <Field label="Last Synced">{formatDateTime(v.qbSyncedAt)}</Field>
                  <Field label="Created">{formatDateTime(v.createdAt)}</Field>
                  <Field label="Last Updated">{formatDateTime(v.updatedAt)}</Field>
                </dl>
                <div className="mt-4 border-t pt-4">
                  <RemittanceAdviceSetting vendor={v} mayChange={mayUnmask} />
                </div>
              </CardContent>
            </Card>
            <Card>
              <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-2">
                <div className="grid gap-1">
                  <CardTitle as="h2">Banking Information</CardTitle>
                  <CardDescription>
                    <BankingBadge ready={v.hasBankingInfo} />
                  </CardDescription>
                </div>
                {mayUnmask && v.hasBankingInfo ? (
                  <Button variant="outline" size="sm" onClick={toggleUnmasked} disabled={revealing}>
                    {unmasked ? <EyeOff aria-hidden="true" /> : <Eye aria-hidden="true" />}
                    {unmasked ? 'Hide Numbers' : 'Show Full Numbers'}
                  </Button>
                ) : null}
              </CardHeader>
              <CardContent className="grid gap-4">
                <BankingBlockNotice block={v.bankingBlock} />
                {mayUnmask ? (
                  <div
                    role="note"
                    className="flex items-start gap-2 rounded-md border border-amber-500/40 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100"
                  >
                    <ShieldAlert className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
                    <span>
                      {v.isUnmasked
                        ? 'Sensitive banking data is visible. Only ADMIN and MODERATOR users can see it, and this view is recorded in the vendor history.'
                        : 'Banking numbers are masked. Only ADMIN and MODERATOR users may show them in full; every time is recorded.'}
                    </span>
                  </div>
                ) : null}
                {v.hasBankingInfo ? (
                  <dl className="grid gap-4 sm:grid-cols-2">
                    <Field label="Bank Name">{v.bankName}</Field>
                    <Field label="Account Type">{accountTypeLabel(v.accountType)}</Field>
                    <Field label="Routing Number">
                      <span className="font-mono" data-testid="routing-number">
                        {v.routingNumber}
                      </span>
                    </Field>
                    <Field label="Account Number">
                      <span className="font-mono" data-testid="account-number">
                        {v.accountNumber}
                      </span>
                    </Field>
                  </dl>
                ) : (
                  <p className="text-sm text-muted-foreground">
                    No bank details yet. ACH payments to this vendor need a routing number, an account number
                    and an account type.
                  </p>
                )}
                {v.pendingBankingChange ? (
                  <PendingBankingChange vendor={v} change={v.pendingBankingChange} />
                ) : null}
                <div className="flex flex-wrap gap-2">
                  <Button size="sm" asChild>
                    <Link to={`/vendors/${v.id}/edit-banking`}>
                      <Pencil aria-hidden="true" />
                      {v.hasBankingInfo ? 'Edit Banking' : 'Add Banking'}
                    </Link>
                  </Button>
                  {v.hasBankingInfo ? (
                    <Button size="sm" variant="outline" onClick={() => setClearing(true)}>
                      <Trash2 aria-hidden="true" />
                      Clear Banking
                    </Button>
                  ) : null}
                </div>
              </CardContent>
            </Card>
          </div>
          <BankingChangesCard vendorId={v.id} />
          <Card>
            <CardHeader>
              <CardTitle as="h2">History</CardTitle>
              <CardDescription>Every change and every unmask, newest first.</CardDescription>
            </CardHeader>
            <CardContent>
              {history.error && !history.data ? (
                <p className="text-sm text-destructive">Failed to load history: {history.error.message}</p>
              ) : !history.data ? (
                <LoadingState text="Loading history..." />
              ) : history.data.length === 0 ? (
                <p className="text-sm text-muted-foreground">No history yet</p>
              ) : (
                <ol className="grid gap-3" data-testid="vendor-history">
                  {history.data.map((h) => (
                    <li key={`${h.at}-${h.action}-${h.userId}`} className="grid gap-0.5 border-l-2 pl-3">
                      <span className="text-sm font-medium">{h.action}</span>
                      <span className="text-xs text-muted-foreground">
                        {formatDateTime(h.at)}
                        {h.userName ? ` · by ${h.userName}` : ''}
                      </span>
                      {h.details ? (
                        <span className="text-sm [overflow-wrap:anywhere]">{h.details}</span>
                      ) : null}
                    </li>
                  ))}
                </ol>
              )}
            </CardContent>
          </Card>
          <ForgetVendorDialog vendor={v} open={forgetting} onOpenChange={setForgetting} />
          <ClearBankingDialog vendor={v} open={clearing} onOpenChange={setClearing} />
        </>
      )}
    </div>
  );
}

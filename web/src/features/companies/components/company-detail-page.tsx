// /companies/{id} (spec 1 §2 Company detail): header with status and Activate/Deactivate, the
// company's information, inline assignments, payment account, recent activity, the QuickBooks
// connection, the company details and quick actions. Live: any change to the company reloads it.
import { ArrowLeft, Building2, ClipboardCheck, FileText, Landmark, Pencil } from 'lucide-react';
import { type ReactNode, useCallback, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { LoadingState } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/use-toast';
import { useCompanyChanged } from '../../../hooks/use-company-changed';
import { useRemote } from '../../../lib/use-remote';
import type { Company } from '../../../types/api';
import {
  changeAssignments,
  getCompany,
  getManagerChoices,
  getTokenStatus,
  getUserChoices,
  setCompanyActive,
} from '../api/companies';
import { formatDate, formatDateTime, NONE } from '../utils/company-rules';
import { CompanyStatusBadge } from './company-badges';
import {
  ASSIGNMENT_LABELS,
  type AssignmentKey,
  AssignmentSelect,
  managerChoices,
  userChoices,
} from './company-form';
import { CompanyNotFound } from './company-not-found';
import { ConnectionCard } from './connection-card';
import { PaymentAccountCard } from './payment-account-card';
import { QbOAuthDialog } from './qb-oauth-dialog';

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

function AssignmentsCard({ company, onChanged }: { company: Company; onChanged: () => void }) {
  const managers = useRemote((signal) => getManagerChoices(signal), []);
  const users = useRemote((signal) => getUserChoices(signal), []);
  const [saving, setSaving] = useState<AssignmentKey | null>(null);

  async function change(key: AssignmentKey, value: string) {
    setSaving(key);
    try {
      await changeAssignments(company.id, { [key]: value === NONE ? null : Number(value) });
      toast.success(`${ASSIGNMENT_LABELS[key]} updated`);
      onChanged();
    } catch (err) {
      toast.error(
        err instanceof Error ? err.message : 'Failed to update assignment',
        'Failed to update assignment',
      );
    } finally {
      setSaving(null);
    }
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle as="h2">User Assignments</CardTitle>
        <CardDescription>Change an assignment here; it is saved at once.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4 sm:grid-cols-2">
        {(Object.keys(ASSIGNMENT_LABELS) as AssignmentKey[]).map((key) => {
          const current = company[key.replace('Id', '') as 'manager'];
          return (
            <AssignmentSelect
              key={key}
              id={`assign-${key}`}
              label={ASSIGNMENT_LABELS[key]}
              value={company[key] == null ? NONE : String(company[key])}
              choices={
                key === 'managerId' ? managerChoices(managers.data ?? []) : userChoices(users.data ?? [])
              }
              current={current}
              disabled={saving !== null || !managers.data || !users.data}
              onChange={(v) => change(key, v)}
            />
          );
        })}
      </CardContent>
    </Card>
  );
}

export function CompanyDetailPage() {
  const { id = '' } = useParams();
  const valid = /^\d+$/.test(id);
  const company = useRemote((signal) => getCompany(id, signal), [id], { enabled: valid });
  const c = company.data;
  const status = useRemote((signal) => getTokenStatus(Number(id), signal), [id, c?.qbRealmId ?? null], {
    enabled: valid && Boolean(c?.qbRealmId),
  });
  const [oauthOpen, setOauthOpen] = useState(false);
  const [toggling, setToggling] = useState(false);

  // After any change: the company, the connection status and (inside the dialog) the credentials.
  const refresh = useCallback(() => {
    company.reload();
    status.reload();
  }, [company.reload, status.reload]);
  useCompanyChanged(valid ? Number(id) : null, refresh);

  async function toggleActive() {
    if (!c) return;
    setToggling(true);
    try {
      const res = await setCompanyActive(c.id, !c.isActive);
      toast.success(
        res.message ?? (c.isActive ? 'Company deactivated successfully' : 'Company activated successfully'),
      );
      refresh();
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'An error occurred');
    } finally {
      setToggling(false);
    }
  }

  const back = (
    <Button variant="outline" size="icon" asChild>
      <Link to="/companies" aria-label="Back to Companies">
        <ArrowLeft aria-hidden="true" />
      </Link>
    </Button>
  );

  if (!valid || (company.error && !c)) {
    return (
      <div className="grid grid-cols-1 gap-6">
        <PageHeader title="Company Details" actions={back} />
        <CompanyNotFound message={valid ? company.error?.message : undefined} />
      </div>
    );
  }
  if (!c) {
    return (
      <div className="grid grid-cols-1 gap-6">
        <PageHeader title="Company Details" actions={back} />
        <LoadingState text="Loading company details..." />
      </div>
    );
  }

  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title={c.name}
        description={
          <span className="inline-flex flex-wrap items-center gap-2">
            <CompanyStatusBadge status={c.status} />
            <span>Created {formatDate(c.createdAt)}</span>
          </span>
        }
        actions={
          <>
            {back}
            <Button variant="outline" size="sm" onClick={toggleActive} disabled={toggling}>
              {c.isActive ? 'Deactivate' : 'Activate'}
            </Button>
            <Button size="sm" asChild>
              <Link to={`/companies/${c.id}/edit`}>
                <Pencil aria-hidden="true" />
                Edit Company
              </Link>
            </Button>
          </>
        }
      />
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-3">
        <div className="grid content-start gap-6 lg:col-span-2">
          <Card>
            <CardHeader>
              <CardTitle as="h2">Company Information</CardTitle>
            </CardHeader>
            <CardContent>
              <dl className="grid gap-4 sm:grid-cols-2">
                <div className="sm:col-span-2">
                  <Field label="Description">{c.description}</Field>
                </div>
                <Field label="Industry">{c.industry}</Field>
                <Field label="Status">
                  <CompanyStatusBadge status={c.status} />
                </Field>
                <Field label="Email">
                  {c.email ? (
                    <a className="hover:underline" href={`mailto:${c.email}`}>
                      {c.email}
                    </a>
                  ) : null}
                </Field>
                <Field label="Phone">{c.phone}</Field>
                <Field label="Website">
                  {c.website ? (
                    <a className="hover:underline" href={c.website} target="_blank" rel="noopener noreferrer">
                      {c.website}
                    </a>
                  ) : null}
                </Field>
                <Field label="Address">{c.address}</Field>
              </dl>
            </CardContent>
          </Card>
          <AssignmentsCard company={c} onChanged={refresh} />
          <PaymentAccountCard company={c} canManage onChanged={refresh} />
          <Card>
            <CardHeader>
              <CardTitle as="h2">Recent Activity</CardTitle>
            </CardHeader>
            <CardContent>
              <p className="text-sm text-muted-foreground">Activity timeline coming soon...</p>
            </CardContent>
          </Card>
        </div>
        <div className="grid content-start gap-6">
          <ConnectionCard
            company={c}
            status={status}
            canManage
            onConnect={() => setOauthOpen(true)}
            onChanged={refresh}
          />
          <Card>
            <CardHeader>
              <CardTitle as="h2">Company Details</CardTitle>
            </CardHeader>
            <CardContent>
              <dl className="grid gap-3">
                <Field label="Company ID">{String(c.id)}</Field>
                <Field label="Created">{formatDateTime(c.createdAt)}</Field>
                <Field label="Last Updated">{formatDateTime(c.updatedAt)}</Field>
                <Field label="QuickBooks Realm ID">
                  {c.qbRealmId ? <span className="font-mono">{c.qbRealmId}</span> : null}
                </Field>
              </dl>
            </CardContent>
          </Card>
          <Card>
            <CardHeader>
              <CardTitle as="h2">Quick Actions</CardTitle>
            </CardHeader>
            <CardContent className="grid gap-2">
              <Button variant="outline" className="justify-start" asChild>
                <Link to={`/companies/${c.id}/nacha`}>
                  <Landmark aria-hidden="true" />
                  NACHA Configuration
                </Link>
              </Button>
              <Button variant="outline" className="justify-start" asChild>
                <Link to="/approvals" state={{ companyId: c.id }}>
                  <ClipboardCheck aria-hidden="true" />
                  View Approvals
                </Link>
              </Button>
              <Button variant="outline" className="justify-start" asChild>
                <Link to={`/bills?companyId=${c.id}`}>
                  <FileText aria-hidden="true" />
                  Create Approval from Bills
                </Link>
              </Button>
              <Button variant="outline" className="justify-start" asChild>
                <Link to="/companies" state={{ search: c.name }}>
                  <Building2 aria-hidden="true" />
                  Find in Companies
                </Link>
              </Button>
            </CardContent>
          </Card>
        </div>
      </div>
      <QbOAuthDialog
        companyId={c.id}
        companyName={c.name}
        open={oauthOpen}
        onOpenChange={setOauthOpen}
        onChanged={refresh}
      />
    </div>
  );
}

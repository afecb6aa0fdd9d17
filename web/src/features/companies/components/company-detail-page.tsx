// /companies/{id}: header with status and Activate/Deactivate, the company's information, inline
// assignments, payment account, its bank connection, the control on vendors' bank detail changes,
// recent activity, the QuickBooks connection, the company details and quick actions.
// Live: any change to the company reloads it.
import { ArrowLeft, Building2, ClipboardCheck, FileText, Landmark, Pencil } from 'lucide-react';
import { type ReactNode, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../../components/ui/card';
import { LoadingState } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/use-toast';
import { useCompanyChanged } from '../../../hooks/use-company-changed';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import {
  ChangeCompanyAssignments,
  type Company,
  CompanyQuery,
  ManagerChoicesQuery,
  UserChoicesQuery,
  useSetCompanyActive,
  useTokenStatus,
} from '../api/companies';
import { formatDate, formatDateTime, NONE, PICKER_LIMIT } from '../utils/company-rules';
import { BankConnectionCard } from './bank-connection-card';
import { BankingControlCard } from './banking-control-card';
import { CompanyActivityCard } from './company-activity-card';
import { CompanyStatusBadge } from './company-badges';
import {
  ASSIGNEE_OF,
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

function Field({ label, children, wide }: { label: string; children: ReactNode; wide?: boolean }) {
  // The group is the dl's own child (a wrapper between them breaks the definition list for readers).
  return (
    <div className={wide ? 'grid gap-0.5 sm:col-span-2' : 'grid gap-0.5'}>
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="text-sm [overflow-wrap:anywhere]">
        {children || <span className="text-muted-foreground">N/A</span>}
      </dd>
    </div>
  );
}

function AssignmentsCard({ company }: { company: Company }) {
  const managers = useGqlQuery(
    ManagerChoicesQuery,
    { limit: PICKER_LIMIT },
    { fallback: 'Failed to fetch managers' },
  );
  const users = useGqlQuery(UserChoicesQuery, { limit: PICKER_LIMIT }, { fallback: 'Failed to fetch users' });
  const changeAssignments = useGqlMutation(ChangeCompanyAssignments, 'Failed to update assignment');
  const [saving, setSaving] = useState<AssignmentKey | null>(null);
  const managerList = managers.data?.managers.data;
  const userList = users.data?.users.data;

  async function change(key: AssignmentKey, value: string) {
    setSaving(key);
    try {
      await changeAssignments({ id: company.id, input: { [key]: value === NONE ? null : Number(value) } });
      toast.success(`${ASSIGNMENT_LABELS[key]} updated`);
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
      <CardContent className="grid gap-4 sm:grid-cols-2" data-testid="company-assignments">
        {(Object.keys(ASSIGNMENT_LABELS) as AssignmentKey[]).map((key) => (
          <AssignmentSelect
            key={key}
            id={`assign-${key}`}
            label={ASSIGNMENT_LABELS[key]}
            value={company[key] == null ? NONE : String(company[key])}
            choices={key === 'managerId' ? managerChoices(managerList ?? []) : userChoices(userList ?? [])}
            current={company[ASSIGNEE_OF[key]]}
            disabled={saving !== null || !managerList || !userList}
            onChange={(v) => change(key, v)}
          />
        ))}
      </CardContent>
    </Card>
  );
}

export function CompanyDetailPage() {
  const { id = '' } = useParams();
  const valid = /^\d+$/.test(id);
  const company = useGqlQuery(
    CompanyQuery,
    { id: Number(id) },
    { pause: !valid, fallback: 'Failed to fetch company' },
  );
  const c = company.data?.company;
  useDocumentTitle(c ? c.name : 'Company');
  const status = useTokenStatus(Number(id), valid && Boolean(c?.qbRealmId));
  const setCompanyActive = useSetCompanyActive();
  const [oauthOpen, setOauthOpen] = useState(false);
  const [toggling, setToggling] = useState(false);

  // Any change of the company re-reads it through the cache; the token status reads again too.
  useCompanyChanged(valid ? Number(id) : null, status.reload);
  // After the OAuth dialog saved credentials or finished a flow (the callback may beat the push).
  const reloadAll = () => {
    company.reload();
    status.reload();
  };

  async function toggleActive() {
    if (!c) return;
    setToggling(true);
    try {
      toast.success(await setCompanyActive(c.id, !c.isActive));
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
                <Field label="Description" wide>
                  {c.description}
                </Field>
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
          <AssignmentsCard company={c} />
          <PaymentAccountCard company={c} canManage />
          <BankConnectionCard companyId={c.id} connection={c.bankConnection} canManage />
          <BankingControlCard companyId={c.id} />
          <CompanyActivityCard companyId={c.id} />
        </div>
        <div className="grid content-start gap-6">
          <ConnectionCard company={c} status={status} canManage onConnect={() => setOauthOpen(true)} />
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
        onChanged={reloadAll}
      />
    </div>
  );
}

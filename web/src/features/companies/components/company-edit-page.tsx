// /companies/{id}/edit: 'Loading company details...', then the
// form; 'Company Not Found' when it cannot load. Success goes to the company.
import { ArrowLeft } from 'lucide-react';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { LoadingState } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/use-toast';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { ApiError } from '../../../lib/errors';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import {
  COMPANY_MESSAGES,
  CompanyQuery,
  ManagerChoicesQuery,
  UpdateCompany,
  UserChoicesQuery,
} from '../api/companies';
import { companyToForm, PICKER_LIMIT, toCompanyUpdatePayload } from '../utils/company-rules';
import { CompanyForm } from './company-form';
import { CompanyNotFound } from './company-not-found';
import { QbOAuthDialog } from './qb-oauth-dialog';

export function CompanyEditPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const valid = /^\d+$/.test(id);
  const company = useGqlQuery(
    CompanyQuery,
    { id: Number(id) },
    { pause: !valid, fallback: 'Failed to fetch company' },
  );
  const managers = useGqlQuery(
    ManagerChoicesQuery,
    { limit: PICKER_LIMIT },
    { fallback: 'Failed to fetch managers' },
  );
  const users = useGqlQuery(UserChoicesQuery, { limit: PICKER_LIMIT }, { fallback: 'Failed to fetch users' });
  const updateCompany = useGqlMutation(UpdateCompany, 'Failed to update company');
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [oauthOpen, setOauthOpen] = useState(false);
  const c = company.data?.company;
  useDocumentTitle(c ? `Edit ${c.name}` : 'Edit company');
  const loading = !c || (managers.loading && !managers.data) || (users.loading && !users.data);
  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Edit Company"
        description={c ? `Update the details of ${c.name}` : undefined}
        actions={
          <Button variant="outline" size="sm" asChild>
            <Link to="/companies" aria-label="Back to Companies">
              <ArrowLeft aria-hidden="true" />
              Back
            </Link>
          </Button>
        }
      />
      {!valid || (company.error && !c) ? (
        <CompanyNotFound message={valid ? company.error?.message : undefined} />
      ) : loading ? (
        <LoadingState text="Loading company details..." />
      ) : (
        <>
          <CompanyForm
            key={c.id}
            initial={companyToForm(c)}
            company={c}
            managers={managers.data?.managers.data ?? []}
            users={users.data?.users.data ?? []}
            submitLabel="Update Company"
            busyLabel="Saving..."
            serverErrors={serverErrors}
            onCancel={() => navigate('/companies')}
            onConfigureQuickBooks={() => setOauthOpen(true)}
            onSubmit={async (values) => {
              setServerErrors({});
              try {
                await updateCompany({
                  id: c.id,
                  input: toCompanyUpdatePayload(values, { paymentAccountShown: !!c.qbRealmId }),
                });
                toast.success(COMPANY_MESSAGES.updated);
                navigate(`/companies/${c.id}`);
              } catch (err) {
                if (err instanceof ApiError) setServerErrors(err.fieldErrors);
                toast.error(err instanceof Error ? err.message : 'An error occurred');
              }
            }}
          />
          <QbOAuthDialog
            companyId={c.id}
            companyName={c.name}
            open={oauthOpen}
            onOpenChange={setOauthOpen}
            onChanged={company.reload}
          />
        </>
      )}
    </div>
  );
}

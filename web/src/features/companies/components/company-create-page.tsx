// /companies/new: success goes to the new company; Cancel and the back
// arrow go to /companies.
import { ArrowLeft } from 'lucide-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { PageHeader } from '../../../components/layout/page-header';
import { Button } from '../../../components/ui/button';
import { LoadingState } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/use-toast';
import { useDocumentTitle } from '../../../hooks/use-document-title';
import { ApiError } from '../../../lib/errors';
import { useGqlMutation, useGqlQuery } from '../../../lib/use-graphql';
import { COMPANY_MESSAGES, CreateCompany, ManagerChoicesQuery, UserChoicesQuery } from '../api/companies';
import { EMPTY_COMPANY_FORM, PICKER_LIMIT, toCompanyPayload } from '../utils/company-rules';
import { CompanyForm } from './company-form';

export function CompanyCreatePage() {
  useDocumentTitle('New company');
  const navigate = useNavigate();
  const managers = useGqlQuery(
    ManagerChoicesQuery,
    { limit: PICKER_LIMIT },
    { fallback: 'Failed to fetch managers' },
  );
  const users = useGqlQuery(UserChoicesQuery, { limit: PICKER_LIMIT }, { fallback: 'Failed to fetch users' });
  const createCompany = useGqlMutation(CreateCompany, 'Failed to create company');
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const loading = (managers.loading && !managers.data) || (users.loading && !users.data);
  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="Create Company"
        description="Add a client company and assign the people who handle its bills"
        actions={
          <Button variant="outline" size="sm" asChild>
            <Link to="/companies" aria-label="Back to Companies">
              <ArrowLeft aria-hidden="true" />
              Back
            </Link>
          </Button>
        }
      />
      {loading ? (
        <LoadingState text="Loading..." />
      ) : (
        <CompanyForm
          initial={EMPTY_COMPANY_FORM}
          managers={managers.data?.managers.data ?? []}
          users={users.data?.users.data ?? []}
          submitLabel="Create Company"
          busyLabel="Creating..."
          serverErrors={serverErrors}
          onCancel={() => navigate('/companies')}
          onSubmit={async (values) => {
            setServerErrors({});
            try {
              const { createCompany: company } = await createCompany({ input: toCompanyPayload(values) });
              toast.success(COMPANY_MESSAGES.created);
              navigate(`/companies/${company.id}`);
            } catch (err) {
              if (err instanceof ApiError) setServerErrors(err.fieldErrors);
              toast.error(err instanceof Error ? err.message : 'An error occurred');
            }
          }}
        />
      )}
    </div>
  );
}

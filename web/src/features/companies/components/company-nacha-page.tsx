// /companies/{id}/nacha: loads the company, then whether it sends Same-Day ACH and the NACHA form.
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
import { COMPANY_MESSAGES, CompanyQuery, ConfigureCompanyNacha } from '../api/companies';
import { nachaDefaults, toNachaPayload } from '../utils/nacha-rules';
import { CompanyNotFound } from './company-not-found';
import { NachaForm } from './nacha-form';
import { SameDayAchCard } from './same-day-ach-card';

export function CompanyNachaPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const valid = /^\d+$/.test(id);
  const company = useGqlQuery(
    CompanyQuery,
    { id: Number(id) },
    { pause: !valid, fallback: 'Failed to fetch company' },
  );
  const configureNacha = useGqlMutation(ConfigureCompanyNacha, 'Failed to update NACHA configuration');
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const c = company.data?.company;
  useDocumentTitle(c ? `NACHA configuration of ${c.name}` : 'NACHA configuration');
  return (
    <div className="grid grid-cols-1 gap-6">
      <PageHeader
        title="NACHA Configuration"
        description={c ? `ACH file settings for ${c.name}` : undefined}
        actions={
          <Button variant="outline" size="sm" asChild>
            <Link to={valid ? `/companies/${id}` : '/companies'}>
              <ArrowLeft aria-hidden="true" />
              Back
            </Link>
          </Button>
        }
      />
      {!valid || (company.error && !c) ? (
        <CompanyNotFound message={valid ? company.error?.message : undefined} />
      ) : !c ? (
        <LoadingState text="Loading company details..." />
      ) : (
        <>
          <SameDayAchCard key={`same-day-${c.id}`} companyId={c.id} sameDayAch={c.sameDayAch} />
          <NachaForm
            key={c.id}
            initial={nachaDefaults(c)}
            serverErrors={serverErrors}
            onCancel={() => navigate(`/companies/${c.id}`)}
            onSubmit={async (values) => {
              setServerErrors({});
              try {
                await configureNacha({ id: c.id, input: toNachaPayload(values) });
                toast.success(COMPANY_MESSAGES.nacha);
                navigate(`/companies/${c.id}`);
              } catch (err) {
                if (err instanceof ApiError) setServerErrors(err.fieldErrors);
                toast.error(err instanceof Error ? err.message : 'An error occurred');
              }
            }}
          />
        </>
      )}
    </div>
  );
}

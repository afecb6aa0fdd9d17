// Live updates of companies: the companyChanged subscription (GraphQL over the shared socket). The
// companies list refetches and a detail page reloads when any session (or the refresh job) changes a company.
import { useEffect, useRef } from 'react';
import { useSubscription } from 'urql';
import { graphql } from '../lib/graphql';
import { useResubscribeOnBacklog } from './use-resubscribe-on-backlog';

export const CompaniesChanged = graphql(`
  subscription CompaniesChanged($id: Int) {
    companyChanged(id: $id) {
      id
      type
    }
  }
`);

export function useCompanyChanged(
  id: number | null,
  onChange: (change: { id: number; type: string }) => void,
) {
  const [result, resubscribe] = useSubscription({ query: CompaniesChanged, variables: { id } });
  useResubscribeOnBacklog(result.error, resubscribe);
  const latest = useRef(onChange);
  latest.current = onChange;
  const change = result.data?.companyChanged;
  useEffect(() => {
    if (change) latest.current(change);
  }, [change]);
}

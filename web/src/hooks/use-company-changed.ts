// Live updates of companies: the companyChanged subscription (GraphQL over the shared socket). The
// companies list refetches and a detail page reloads when any session (or the refresh job) changes a company.
import { graphql } from '../lib/graphql';
import { useLiveChange } from './use-live-change';

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
  useLiveChange(CompaniesChanged, { id }, (d) => d.companyChanged, onChange);
}

// A company's Recent Activity: its lines, newest first, as a GraphQL document; the
// live feed of that company's lines (`activityAdded(companyId)`) re-reads it through the cache
// (lib/cache-rules.ts).
import { graphql, type ResultOf } from '../../../lib/graphql';

export const CompanyActivityQuery = graphql(`
  query CompanyActivity($companyId: Int!, $limit: Int) {
    companyActivity(companyId: $companyId, limit: $limit) {
      id
      type
      description
      timestamp
    }
  }
`);

export const CompanyActivityAdded = graphql(`
  subscription CompanyActivityAdded($companyId: Int) {
    activityAdded(companyId: $companyId) {
      id
    }
  }
`);

export type CompanyActivityItem = ResultOf<typeof CompanyActivityQuery>['companyActivity'][number];

/** Lines shown at first, and added by each "Show more" (the server gives at most 100). */
export const COMPANY_ACTIVITY_PAGE = 20;
export const COMPANY_ACTIVITY_MAX = 100;

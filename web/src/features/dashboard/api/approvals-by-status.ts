// The approvals chart's read, apart from the dashboard's own documents: the chart is a
// chunk of its own (React.lazy), and a module shared with the page would merge the two chunks.
import { graphql, type ResultOf } from '../../../lib/graphql';

/** Approvals created per day (UTC) over the last `days`, by their status now. */
export const ApprovalsByStatusQuery = graphql(`
  query DashboardApprovalsByStatus($days: Int) {
    dashboardApprovalsByStatus(days: $days) {
      date
      pending
      approved
      rejected
      expired
      total
    }
  }
`);

export type ApprovalsByDay = ResultOf<typeof ApprovalsByStatusQuery>['dashboardApprovalsByStatus'][number];

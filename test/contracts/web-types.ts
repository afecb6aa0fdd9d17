// The web app's types of the API's answers, held against the server's: a field renamed, retyped or
// dropped on one side fails the type check (npm test's tsc step) instead of showing an empty cell.
// The rule is what a client needs: every answer the server builds fits the web's type, and every
// field the web's type names exists in the server's (so an optional one cannot name a field the
// server never sends). The server may send more than a screen reads. Screens on GraphQL (companies,
// vendors …) type their answers from the documents, checked by gql.tada against the printed schema.
import type * as A from '../../services/approvals/approvals.js';
import type * as D from '../../services/dashboard/dashboard.js';
import type { ManagerDto } from '../../services/managers/managers.js';
import type * as O from '../../services/operations/operations.js';
import type { UserDto } from '../../services/users/user-view.js';
import type * as WA from '../../web/src/features/approvals/api/approvals.js';
import type * as WD from '../../web/src/features/dashboard/api/get-dashboard-stats.js';
import type * as WO from '../../web/src/features/operations/api/get-operations.js';
import type * as W from '../../web/src/types/api.js';

/** The server's type fits the web's, and names every field the web's names. */
type Fits<Server, Web> = [Server] extends [Web] ? ([keyof Web] extends [keyof Server] ? true : false) : false;
type Expect<T extends true> = T;

export type ServerAnswersFitTheWebTypes = [
  Expect<Fits<UserDto, W.User>>,
  Expect<Fits<ManagerDto, W.Manager>>,
  Expect<Fits<A.ApprovalView, WA.Approval>>,
  Expect<Fits<A.ApprovalStats, WA.ApprovalStats>>,
  Expect<Fits<A.ApprovalHistoryEntry, WA.ApprovalHistoryEntry>>,
  Expect<Fits<A.BillCandidate, WA.BillForApproval>>,
  Expect<Fits<A.BulkResult, WA.BulkResult>>,
  Expect<Fits<A.ManagerOption, WA.ManagerOption>>,
  Expect<Fits<A.ApprovalsDay, WA.ApprovalsByDay>>,
  Expect<Fits<D.DashboardStats, WD.DashboardStats>>,
  Expect<Fits<O.OperationsOverview, WO.OperationsOverview>>,
];

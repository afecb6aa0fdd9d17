// A page of a list answer, the same shape for every list (users, managers, companies, vendors,
// approvals): written once with the answers, in schema/shared/answers.ts.
export type { Page } from '../../schema/shared/answers.js';

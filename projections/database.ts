// The read-model database as kysely sees it: the core's tables and every module's read models,
// listed here, above the modules, so that services/shared/db.ts names none of them.
import type { RefreshTokensTable, SessionsTable } from '../services/auth/refresh-tokens.js';
import type { ApprovalReadTables } from './approvals/tables.js';
import type { CompaniesTables } from './companies/tables.js';
import type { ActivityTables } from './dashboard/tables.js';
import type { ManagersTables } from './managers/tables.js';
import type { PaymentsTables } from './payments/tables.js';
import type { UsersTables } from './users/tables.js';
import type { VendorReadTables } from './vendors/tables.js';

/** The core's own tables (the log's consumers, sign-in). Raw-SQL-only tables are left out. */
export interface CoreTables {
  auth_refresh_tokens: RefreshTokensTable;
  auth_sessions: SessionsTable;
  projection_checkpoints: { name: string; position: string; version: number; updated_at: Date };
}

/** The read-model database: the core's tables and every module's read models. */
export type Database = CoreTables &
  UsersTables &
  ManagersTables &
  CompaniesTables &
  VendorReadTables &
  ApprovalReadTables &
  PaymentsTables &
  ActivityTables;

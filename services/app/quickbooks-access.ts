// The application kernel's port to a company's QuickBooks. The companies module implements it (the
// token is refreshed on the company's stream through its decider); approvals and vendors call
// QuickBooks through it without importing another module.
import type { QbTokenSource, QuickBooksClient } from '../quickbooks/client.js';
import type { CommandContext } from './command-handler.js';

/** What a call to a company's QuickBooks needs. */
export interface QbAccess {
  client: QuickBooksClient;
  isSandbox: boolean;
  realmId: string;
  /** The access token as it was when granted (`auth.token` follows renewals). */
  accessToken: string;
  /** Renews the token once on a 401 and marks the connection as needing attention on a second one. */
  auth: QbTokenSource;
}

export interface QuickBooksAccess {
  /**
   * An access token not about to expire (refreshed first if it is), its realm and environment.
   * CONFLICT when the company is not connected or its app credentials are refused.
   */
  access(companyId: number, ctx: CommandContext): Promise<QbAccess>;
}

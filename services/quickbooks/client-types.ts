// What the QuickBooks client is given and answers: the app's credentials, issued tokens, where a
// call's token comes from, its configuration, and the BillPayment it writes.
import type { QbApiError } from './client-errors.js';
import type { QbRateLimiter } from './rate-limit.js';

export interface QbAppCredentials {
  clientId: string;
  clientSecret: string;
  isSandbox: boolean;
  redirectUri: string;
}

export interface IssuedTokens {
  realmId: string;
  accessToken: string;
  refreshToken: string;
  accessExpiresAt: Date;
  refreshExpiresAt: Date | null;
  /**
   * The refresh token's absolute end (Intuit's 5-year cap, `x_refresh_token_hard_expires_in`): the
   * company must consent again by then, whatever the refreshes do. Null when Intuit gave none.
   */
  refreshHardExpiresAt?: Date | null;
  issuedAt: Date;
}

/**
 * Where a call's access token comes from when the caller can renew it: on a 401 the client asks
 * `renew` once (a refresh) and retries; a second 401 goes to `rejected` (the connection needs
 * attention) and is thrown.
 */
export interface QbTokenSource {
  token: string;
  renew(): Promise<string>;
  rejected(err: QbApiError): Promise<void>;
}

export const QB_SCOPES = [
  'com.intuit.quickbooks.accounting',
  'openid',
  'profile',
  'email',
  'phone',
  'address',
];

export interface QuickBooksConfig {
  /** e.g. http://127.0.0.1:4010 for the simulator; absent: Intuit's hosts. */
  oauthBase?: string;
  /** e.g. http://127.0.0.1:4010; absent: Intuit's sandbox or production API by the credentials. */
  apiBase?: string;
  /** Retries of a 429 or 5xx answer (intuit-oauth retries nothing on API calls). */
  retries?: number;
  retryBaseMs?: number;
  /** The realm's limiter shared by every process (rate-limit.ts); absent: none. */
  limiter?: QbRateLimiter;
  /** Longest wait for the limiter before a call gives up with QbThrottledError (default 2 s). */
  maxWaitMs?: number;
  /** The wait when a 429 names none (Intuit: "wait 60 seconds"). */
  throttleWaitMs?: number;
  /** Requests in flight at once per realm from this process (Intuit: at most 10; default 10). */
  concurrentPerRealm?: number;
  /** How long a v3 API request may take before it counts as a time-out (default 10 s). */
  timeoutMs?: number;
}

/** Intuit's limit on `requestid`: at most 50 characters, unique per company (reference §2, §6). */
export const QB_REQUEST_ID_MAX = 50;

type QbRef = { value: string; name?: string };

/** A BillPayment to create (Intuit's BillPayment entity; PayType Check or CreditCard). TotalAmt is required. */
export type QbBillPaymentInput = {
  VendorRef: QbRef;
  TotalAmt: number;
  TxnDate?: string;
  DocNumber?: string;
  PrivateNote?: string;
  Line: Array<{ Amount: number; LinkedTxn: Array<{ TxnId: string; TxnType: 'Bill' }> }>;
} & (
  | { PayType: 'Check'; CheckPayment: { BankAccountRef: QbRef; PrintStatus?: string } }
  | { PayType: 'CreditCard'; CreditCardPayment: { CCAccountRef: QbRef } }
);

/** A BillPayment as QuickBooks answers it. */
export type QbBillPayment = QbBillPaymentInput & {
  Id: string;
  SyncToken: string;
  MetaData?: { CreateTime?: string; LastUpdatedTime?: string };
};

/** What Intuit would refuse, refused before the call: no TotalAmt, no lines, a bad requestid. */
export function checkBillPayment(payment: QbBillPaymentInput, requestId: string) {
  if (typeof requestId !== 'string' || requestId.length === 0 || requestId.length > QB_REQUEST_ID_MAX)
    throw new RangeError(`A QuickBooks requestid has 1 to ${QB_REQUEST_ID_MAX} characters`);
  const total = (payment as { TotalAmt?: unknown }).TotalAmt;
  if (typeof total !== 'number' || !Number.isFinite(total) || total <= 0)
    throw new RangeError('A BillPayment needs TotalAmt, a positive amount');
  if (!Array.isArray(payment.Line) || payment.Line.length === 0)
    throw new RangeError('A BillPayment needs at least one line linking a bill');
}

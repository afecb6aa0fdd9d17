// Talking to QuickBooks Online: OAuth through Intuit's own client (intuit-oauth), the v3 API with
// fetch. Both hosts come from configuration (QBO_OAUTH_BASE, QBO_API_BASE), so the QuickBooks
// simulator (tools/qbo-sandbox) stands in for Intuit with no code of its own here
// (reference/quickbooks.md §5).
import OAuthClient from 'intuit-oauth';
import { QbRateLimited, type QbRateLimiter } from './rate-limit.js';

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

/** The grant is gone: revoked, expired, or its refresh token rotated away (`invalid_grant`). */
export class QbGrantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QbGrantError';
  }
}

/**
 * The app's own id or secret was refused (`invalid_client`: wrong or rotated in Intuit's developer
 * portal). Not a lost grant: the company's tokens stay and work again once the credentials are fixed
 * (reference/quickbooks.md §6).
 */
export class QbAppCredentialsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QbAppCredentialsError';
  }
}

/**
 * QuickBooks refused a call: 401 (token), 403 (3100, the app may not reach the company), 400
 * (validation fault), 429, 5xx, or no answer at all (status 0: a time-out or a network error).
 * `intuitTid` is Intuit's `intuit_tid` response header, the id Intuit's support asks for; the
 * message carries it, so the log line and a failed job's error show it.
 */
export class QbApiError extends Error {
  constructor(
    message: string,
    public readonly status: number,
    public readonly code: string | null,
    public readonly intuitTid: string | null = null,
  ) {
    super(intuitTid ? `${message} (intuit_tid ${intuitTid})` : message);
    this.name = 'QbApiError';
  }

  /** Worth trying again later: throttled, a server error, or no answer. */
  get transient() {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

/**
 * The realm's request budget is spent (QuickBooks answered 429, or the shared limiter says the next
 * request would be refused): nothing should call before `retryAfterMs`. A job is delayed that long;
 * a request answers 503.
 */
export class QbThrottledError extends QbApiError {
  constructor(
    public readonly retryAfterMs: number,
    intuitTid: string | null = null,
  ) {
    super(
      `QuickBooks is limiting requests for this company; try again in ${Math.ceil(retryAfterMs / 1000)} s`,
      429,
      '3001',
      intuitTid,
    );
    this.name = 'QbThrottledError';
  }
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

const SECONDS = 1000;

export class QuickBooksClient {
  constructor(private readonly config: QuickBooksConfig = {}) {}

  private oauth(creds: QbAppCredentials): OAuthClient {
    const client = new OAuthClient({
      clientId: creds.clientId,
      clientSecret: creds.clientSecret,
      environment: creds.isSandbox ? 'sandbox' : 'production',
      redirectUri: creds.redirectUri,
      logging: false,
      // Intuit returns the refresh token's hard expiry only when asked (intuit-oauth 4.2.4 CHANGELOG).
      includeRefreshTokenHardExpiresIn: true,
    });
    const b = this.config.oauthBase?.replace(/\/$/, '');
    // Process-wide in intuit-oauth (static endpoints): one value per process, from configuration.
    if (b)
      client.setAuthorizeURLs({
        authorizeEndpoint: `${b}/connect/oauth2`,
        tokenEndpoint: `${b}/oauth2/v1/tokens/bearer`,
        // Intuit's own path (developer.api.intuit.com/v2/oauth2/tokens/revoke, intuit-oauth's
        // OAuthClient.revokeEndpoint), on the configured host.
        revokeEndpoint: `${b}/v2/oauth2/tokens/revoke`,
        userInfoEndpoint: `${b}/v1/openid_connect/userinfo`,
      });
    return client;
  }

  authorizeUrl(creds: QbAppCredentials, state: string): string {
    return this.oauth(creds).authorizeUri({ scope: QB_SCOPES, state });
  }

  private static issued(token: Record<string, any>, realmId: string): IssuedTokens {
    const issuedAt = new Date(typeof token.createdAt === 'number' ? token.createdAt : Date.now());
    const refreshIn = Number(token.x_refresh_token_expires_in);
    const hardIn = Number(token.x_refresh_token_hard_expires_in);
    return {
      realmId,
      accessToken: String(token.access_token),
      refreshToken: String(token.refresh_token),
      accessExpiresAt: new Date(issuedAt.getTime() + Number(token.expires_in ?? 3600) * SECONDS),
      refreshExpiresAt: Number.isFinite(refreshIn)
        ? new Date(issuedAt.getTime() + refreshIn * SECONDS)
        : null,
      // intuit-oauth keeps 0 when the answer had none.
      refreshHardExpiresAt:
        Number.isFinite(hardIn) && hardIn > 0 ? new Date(issuedAt.getTime() + hardIn * SECONDS) : null,
      issuedAt,
    };
  }

  private static grantError(err: unknown): Error {
    const e = err as {
      error?: string;
      error_description?: string;
      message?: string;
      authResponse?: { json?: any };
    };
    const code = e.error ?? e.authResponse?.json?.error;
    const tid = (e as { intuit_tid?: string }).intuit_tid ?? null;
    if (code === 'invalid_client')
      return new QbAppCredentialsError(
        `QuickBooks refused the app's credentials (invalid_client)${tid ? ` (intuit_tid ${tid})` : ''}`,
      );
    if (code === 'invalid_grant')
      return new QbGrantError(e.error_description ?? e.authResponse?.json?.error_description ?? String(code));
    return new QbApiError(
      `QuickBooks token call failed: ${e.message ?? String(err)}`,
      502,
      code ?? null,
      tid,
    );
  }

  /** Exchanges the authorization code of a callback URL (its query: code, state, realmId). */
  async exchangeCode(creds: QbAppCredentials, callbackUrl: string): Promise<IssuedTokens> {
    const realmId = new URL(callbackUrl, 'http://callback.invalid').searchParams.get('realmId');
    if (!realmId) throw new QbGrantError('The callback carries no realmId');
    try {
      const r = await this.oauth(creds).createToken(callbackUrl);
      return QuickBooksClient.issued(r.getToken() as Record<string, any>, realmId);
    } catch (err) {
      throw QuickBooksClient.grantError(err);
    }
  }

  /** A new pair for the refresh token; the old refresh token stops working after Intuit's grace period. */
  async refresh(creds: QbAppCredentials, realmId: string, refreshToken: string): Promise<IssuedTokens> {
    try {
      const r = await this.oauth(creds).refreshUsingToken(refreshToken);
      return QuickBooksClient.issued(r.getToken() as Record<string, any>, realmId);
    } catch (err) {
      throw QuickBooksClient.grantError(err);
    }
  }

  /**
   * Revokes the grant at Intuit through intuit-oauth's `revoke({refresh_token})`: JSON `{token}` to
   * OAuthClient.revokeEndpoint (developer.api.intuit.com/v2/oauth2/tokens/revoke, or the configured
   * host). Revoking the refresh token ends the whole grant, its access tokens too.
   */
  async revoke(creds: QbAppCredentials, refreshToken: string): Promise<void> {
    try {
      await this.oauth(creds).revoke({ refresh_token: refreshToken });
    } catch (err) {
      throw QuickBooksClient.grantError(err);
    }
  }

  private apiBase(isSandbox: boolean) {
    if (this.config.apiBase) return this.config.apiBase.replace(/\/$/, '');
    return isSandbox ? 'https://sandbox-quickbooks.api.intuit.com' : 'https://quickbooks.api.intuit.com';
  }

  /** Requests in flight per realm in this process, and those waiting for a turn. */
  private readonly inFlight = new Map<string, { active: number; waiting: Array<() => void> }>();

  /**
   * A turn among the realm's requests in flight from this process: Intuit refuses more than 10 at
   * once per realm and app (blogs.intuit.com 2016-08-08), which requests slower than a tenth of a
   * second would reach at 10 a second. Returns the release.
   */
  private async slot(realmId: string): Promise<() => void> {
    const max = this.config.concurrentPerRealm ?? 10;
    let s = this.inFlight.get(realmId);
    if (!s) {
      s = { active: 0, waiting: [] };
      this.inFlight.set(realmId, s);
    }
    const state = s;
    if (state.active >= max) await new Promise<void>((r) => state.waiting.push(r));
    else state.active++;
    return () => {
      const next = state.waiting.shift();
      // The turn passes to the next waiter as it is; the last one out frees it.
      if (next) next();
      else if (--state.active === 0) this.inFlight.delete(realmId);
    };
  }

  /** A throttle answer: the realm is blocked for Intuit's wait (retry-after) in the shared limiter. */
  private async throttle(realmId: string, res: Response, tid: string | null) {
    const after = Number(res.headers.get('retry-after'));
    const wait =
      Number.isFinite(after) && after > 0 ? after * SECONDS : (this.config.throttleWaitMs ?? 60 * SECONDS);
    await this.config.limiter?.blockFor(realmId, wait);
    return new QbThrottledError(wait, tid);
  }

  /** Waits for the realm's shared limiter (rate-limit.ts); a long wait is the caller's: QbThrottledError. */
  private async takeTurn(realmId: string) {
    if (!this.config.limiter) return;
    try {
      await this.config.limiter.acquire(realmId, this.config.maxWaitMs ?? 2000);
    } catch (err) {
      if (err instanceof QbRateLimited) throw new QbThrottledError(err.retryAfterMs);
      throw err;
    }
  }

  /**
   * One API request: the realm's turn first; 5xx retried with backoff here; a 429 blocks the realm
   * in the shared limiter for Intuit's wait and is thrown (QbThrottledError), never retried within
   * seconds; a 401 with a renewable token is retried once with a renewed token (Intuit's OAuth FAQ:
   * on 401 refresh and retry), and a second 401 marks the connection (`rejected`).
   */
  private async send(
    realmId: string,
    accessToken: string | QbTokenSource,
    url: URL,
    accept: string,
    timeoutMs = this.config.timeoutMs ?? 10_000,
  ): Promise<Response> {
    const retries = this.config.retries ?? 3;
    const base = this.config.retryBaseMs ?? 500;
    const source = typeof accessToken === 'string' ? null : accessToken;
    let token = source ? source.token : (accessToken as string);
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      await this.takeTurn(realmId);
      let res: Response;
      let body: string;
      const release = await this.slot(realmId);
      try {
        res = await fetch(url, {
          headers: { authorization: `Bearer ${token}`, accept },
          signal: AbortSignal.timeout(timeoutMs),
        });
        body = await res.text();
      } catch (err) {
        const e = err as { name?: string; message?: string; cause?: { code?: string } };
        const what =
          e.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : (e.cause?.code ?? e.message);
        throw new QbApiError(
          `QuickBooks did not answer: ${what}`,
          0,
          e.name === 'TimeoutError' ? 'TIMEOUT' : 'NETWORK',
        );
      } finally {
        release();
      }
      if (res.ok) return new Response(body, { status: res.status, headers: res.headers });
      const tid = res.headers.get('intuit_tid');
      if (res.status === 429 || QuickBooksClient.throttled(body))
        throw await this.throttle(realmId, res, tid);
      if (res.status >= 500 && attempt < retries) {
        await new Promise((r) => setTimeout(r, base * 2 ** attempt));
        continue;
      }
      const error = QuickBooksClient.apiError(res.status, body, tid);
      if (res.status === 401 && source) {
        if (!renewed) {
          renewed = true;
          token = await source.renew();
          continue;
        }
        await source.rejected(error);
      }
      throw error;
    }
  }

  /** GET on the v3 API, JSON. */
  async get<T>(
    isSandbox: boolean,
    realmId: string,
    accessToken: string | QbTokenSource,
    path: string,
  ): Promise<T> {
    const url = new URL(`${this.apiBase(isSandbox)}/v3/company/${encodeURIComponent(realmId)}/${path}`);
    url.searchParams.set('minorversion', '75');
    const res = await this.send(realmId, accessToken, url, 'application/json');
    return (await res.json()) as T;
  }

  /** `SELECT … FROM …` through the query endpoint; the QueryResponse as QuickBooks gives it. */
  query<T>(isSandbox: boolean, realmId: string, accessToken: string | QbTokenSource, q: string) {
    return this.get<{ QueryResponse: T }>(
      isSandbox,
      realmId,
      accessToken,
      `query?query=${encodeURIComponent(q)}`,
    );
  }

  /**
   * Change Data Capture: the entities changed since `changedSince` (Intuit: at most 30 days back,
   * at most 1000 objects; deleted ones as `{"status":"Deleted","Id":…}`), with QuickBooks' `time`.
   */
  cdc(
    isSandbox: boolean,
    realmId: string,
    accessToken: string | QbTokenSource,
    entities: string[],
    changedSince: Date,
  ) {
    return this.get<{ CDCResponse?: Array<{ QueryResponse?: unknown[] }>; time?: string }>(
      isSandbox,
      realmId,
      accessToken,
      `cdc?entities=${encodeURIComponent(entities.join(','))}&changedSince=${encodeURIComponent(changedSince.toISOString())}`,
    );
  }

  /**
   * An attachable's file: QuickBooks answers `download/<id>` with a short-lived link (text), which is
   * fetched at once; the file's body comes back as a stream with its type.
   */
  async download(
    isSandbox: boolean,
    realmId: string,
    accessToken: string | QbTokenSource,
    attachableId: string,
  ): Promise<{ contentType: string; body: ReadableStream<Uint8Array> }> {
    const url = new URL(
      `${this.apiBase(isSandbox)}/v3/company/${encodeURIComponent(realmId)}/download/${encodeURIComponent(attachableId)}`,
    );
    url.searchParams.set('minorversion', '75');
    const res = await this.send(realmId, accessToken, url, 'text/plain');
    const link = (await res.text()).trim();
    if (!/^https?:\/\//.test(link)) throw new QbApiError('QuickBooks gave no download link', 502, null);
    const file = await fetch(link, { signal: AbortSignal.timeout(30_000) });
    if (!file.ok || !file.body)
      throw new QbApiError(`The invoice could not be downloaded (${file.status})`, 502, null);
    return { contentType: file.headers.get('content-type') ?? 'application/pdf', body: file.body };
  }

  /**
   * Pays bills in QuickBooks: POST …/billpayment?requestid=…&minorversion=75 (reference/quickbooks.md
   * §2). `requestid` makes the write idempotent: Intuit answers a repeat with the first response
   * (blogs.intuit.com/2015/04/06/15346), so a 5xx or a lost answer is retried here with the same id.
   * A stale SyncToken (5010) is thrown as QbStaleObjectError; other faults as QbApiError.
   */
  async createBillPayment(
    isSandbox: boolean,
    realmId: string,
    accessToken: string,
    payment: QbBillPaymentInput,
    requestId: string,
  ): Promise<QbBillPayment> {
    checkBillPayment(payment, requestId);
    const url = new URL(`${this.apiBase(isSandbox)}/v3/company/${encodeURIComponent(realmId)}/billpayment`);
    url.searchParams.set('requestid', requestId);
    url.searchParams.set('minorversion', '75');
    const retries = this.config.retries ?? 3;
    const base = this.config.retryBaseMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      await this.takeTurn(realmId);
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${accessToken}`,
            accept: 'application/json',
            'content-type': 'application/json',
          },
          body: JSON.stringify(payment),
          signal: AbortSignal.timeout(30_000),
        });
      } catch (err) {
        // No answer: the payment may or may not be made; the same requestid asks again safely.
        if (attempt < retries) {
          await new Promise((r) => setTimeout(r, base * 2 ** attempt));
          continue;
        }
        throw new QbApiError(`QuickBooks did not answer the payment: ${(err as Error).message}`, 0, null);
      }
      if (res.ok) return ((await res.json()) as { BillPayment: QbBillPayment }).BillPayment;
      const body = await res.text();
      if (res.status >= 500 && attempt < retries) {
        await new Promise((r) => setTimeout(r, base * 2 ** attempt));
        continue;
      }
      const tid = res.headers.get('intuit_tid');
      if (res.status === 429 || QuickBooksClient.throttled(body))
        throw await this.throttle(realmId, res, tid);
      const error = QuickBooksClient.apiError(res.status, body, tid);
      if (error.code === '5010') throw new QbStaleObjectError(error.message, res.status);
      throw error;
    }
  }

  /** A throttle fault under another status (Intuit has sent ThrottleExceeded with 403: python-quickbooks#43). */
  private static throttled(body: string) {
    return /ThrottleExceeded|errorCode=003001/.test(body);
  }

  /**
   * Intuit's error shapes: `Fault` (400, 403 code 3100, 429), lowercase `fault` (401:
   * python-quickbooks#250, quickbooks-ruby base_service_json.rb), and XML `IntuitResponse` despite
   * Accept: application/json (node-quickbooks#57, python-quickbooks#43).
   */
  static apiError(status: number, body: string, intuitTid: string | null = null): QbApiError {
    let message = `QuickBooks answered ${status}`;
    let code: string | null = null;
    let detail: string | null = null;
    try {
      const j = JSON.parse(body) as Record<string, any>;
      const fault = j.Fault ?? j.fault;
      const first = fault?.Error?.[0] ?? fault?.error?.[0];
      if (first) {
        message = String(first.Message ?? first.message ?? message);
        detail = first.Detail ?? first.detail ?? null;
        code = first.code !== undefined ? String(first.code) : null;
      }
    } catch {
      const xml = /<Error\b[^>]*\bcode="([^"]*)"[^>]*>([\s\S]*?)<\/Error>/.exec(body);
      if (xml) {
        code = xml[1];
        const m = /<Message>([\s\S]*?)<\/Message>/.exec(xml[2]);
        const d = /<Detail>([\s\S]*?)<\/Detail>/.exec(xml[2]);
        if (m) message = m[1].trim();
        if (d) detail = d[1].trim();
      }
    }
    if (detail && detail !== message) message = `${message}: ${detail}`;
    if (status === 403 && code === '3100')
      message = `QuickBooks refused this app access to the company (3100): ${message}`;
    return new QbApiError(message, status, code, intuitTid);
  }
}

/**
 * QuickBooks refused a write because the object changed since it was read: its SyncToken is stale
 * (fault code 5010, "Stale Object Error"; Intuit's error codes page). Read it again before retrying.
 */
export class QbStaleObjectError extends QbApiError {
  constructor(message: string, status = 400) {
    super(message, status, '5010');
    this.name = 'QbStaleObjectError';
  }
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
function checkBillPayment(payment: QbBillPaymentInput, requestId: string) {
  if (typeof requestId !== 'string' || requestId.length === 0 || requestId.length > QB_REQUEST_ID_MAX)
    throw new RangeError(`A QuickBooks requestid has 1 to ${QB_REQUEST_ID_MAX} characters`);
  const total = (payment as { TotalAmt?: unknown }).TotalAmt;
  if (typeof total !== 'number' || !Number.isFinite(total) || total <= 0)
    throw new RangeError('A BillPayment needs TotalAmt, a positive amount');
  if (!Array.isArray(payment.Line) || payment.Line.length === 0)
    throw new RangeError('A BillPayment needs at least one line linking a bill');
}

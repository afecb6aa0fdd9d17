// Talking to QuickBooks Online: OAuth through Intuit's own client (intuit-oauth), the v3 API with
// fetch. Both hosts come from configuration (QBO_OAUTH_BASE, QBO_API_BASE), so the QuickBooks
// simulator (tools/qbo-sandbox) stands in for Intuit with no code of its own here
// (reference/quickbooks.md §5).
import type OAuthClient from 'intuit-oauth';
import {
  isThrottleFault,
  QbApiError,
  QbAppCredentialsError,
  QbGrantError,
  QbStaleObjectError,
  QbThrottledError,
  qbApiError,
} from './client-errors.js';
import {
  checkBillPayment,
  type IssuedTokens,
  QB_SCOPES,
  type QbAppCredentials,
  type QbBillPayment,
  type QbBillPaymentInput,
  type QbTokenSource,
  type QuickBooksConfig,
} from './client-types.js';
import { QbRateLimited } from './rate-limit.js';

export {
  QbApiError,
  QbAppCredentialsError,
  QbGrantError,
  QbStaleObjectError,
  QbThrottledError,
} from './client-errors.js';
export {
  type IssuedTokens,
  QB_REQUEST_ID_MAX,
  QB_SCOPES,
  type QbAppCredentials,
  type QbBillPayment,
  type QbBillPaymentInput,
  type QbTokenSource,
  type QuickBooksConfig,
} from './client-types.js';

const SECONDS = 1000;

// intuit-oauth (axios, winston and more under it) is among the heaviest packages the product loads,
// and only an OAuth call needs it: loaded at the first one, not by every process (and every test
// file) that imports this client.
let oauthClass: Promise<typeof OAuthClient> | null = null;

export class QuickBooksClient {
  constructor(private readonly config: QuickBooksConfig = {}) {}

  private async oauth(creds: QbAppCredentials): Promise<OAuthClient> {
    oauthClass ??= import('intuit-oauth').then((m) => m.default);
    const OAuth = await oauthClass;
    const client = new OAuth({
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

  async authorizeUrl(creds: QbAppCredentials, state: string): Promise<string> {
    return (await this.oauth(creds)).authorizeUri({ scope: QB_SCOPES, state });
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
      const r = await (await this.oauth(creds)).createToken(callbackUrl);
      return QuickBooksClient.issued(r.getToken() as Record<string, any>, realmId);
    } catch (err) {
      throw QuickBooksClient.grantError(err);
    }
  }

  /** A new pair for the refresh token; the old refresh token stops working after Intuit's grace period. */
  async refresh(creds: QbAppCredentials, realmId: string, refreshToken: string): Promise<IssuedTokens> {
    try {
      const r = await (await this.oauth(creds)).refreshUsingToken(refreshToken);
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
      await (await this.oauth(creds)).revoke({ refresh_token: refreshToken });
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
  private async takeTurn(realmId: string): Promise<() => Promise<void>> {
    const limiter = this.config.limiter;
    if (!limiter) return async () => {};
    try {
      const turn = await limiter.acquire(realmId, this.config.maxWaitMs ?? 2000);
      return () => limiter.answered(realmId, turn);
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
      const answered = await this.takeTurn(realmId);
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
        await answered();
      }
      if (res.ok) return new Response(body, { status: res.status, headers: res.headers });
      const tid = res.headers.get('intuit_tid');
      if (res.status === 429 || isThrottleFault(body)) throw await this.throttle(realmId, res, tid);
      if (res.status >= 500 && attempt < retries) {
        await new Promise((r) => setTimeout(r, base * 2 ** attempt));
        continue;
      }
      const error = qbApiError(res.status, body, tid);
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
      const answered = await this.takeTurn(realmId);
      let res: Response;
      let body: string;
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
        body = await res.text();
      } catch (err) {
        // No answer: the payment may or may not be made; the same requestid asks again safely.
        await answered();
        if (attempt < retries) {
          await new Promise((r) => setTimeout(r, base * 2 ** attempt));
          continue;
        }
        throw new QbApiError(`QuickBooks did not answer the payment: ${(err as Error).message}`, 0, null);
      }
      await answered();
      if (res.ok) return (JSON.parse(body) as { BillPayment: QbBillPayment }).BillPayment;
      if (res.status >= 500 && attempt < retries) {
        await new Promise((r) => setTimeout(r, base * 2 ** attempt));
        continue;
      }
      const tid = res.headers.get('intuit_tid');
      if (res.status === 429 || isThrottleFault(body)) throw await this.throttle(realmId, res, tid);
      const error = qbApiError(res.status, body, tid);
      if (error.code === '5010') throw new QbStaleObjectError(error.message, res.status);
      throw error;
    }
  }
}

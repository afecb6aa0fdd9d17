// How QuickBooks refuses: the errors a call throws, and Intuit's fault bodies read into them.
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
 * QuickBooks refused a write because the object changed since it was read: its SyncToken is stale
 * (fault code 5010, "Stale Object Error"; Intuit's error codes page). Read it again before retrying.
 */
export class QbStaleObjectError extends QbApiError {
  constructor(message: string, status = 400) {
    super(message, status, '5010');
    this.name = 'QbStaleObjectError';
  }
}

/** A throttle fault under another status (Intuit has sent ThrottleExceeded with 403: python-quickbooks#43). */
export function isThrottleFault(body: string) {
  return /ThrottleExceeded|errorCode=003001/.test(body);
}

/**
 * Intuit's error shapes: `Fault` (400, 403 code 3100, 429), lowercase `fault` (401:
 * python-quickbooks#250, quickbooks-ruby base_service_json.rb), and XML `IntuitResponse` despite
 * Accept: application/json (node-quickbooks#57, python-quickbooks#43).
 */
export function qbApiError(status: number, body: string, intuitTid: string | null = null): QbApiError {
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

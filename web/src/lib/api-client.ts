// The one way the app talks to the server (REST and GraphQL over HTTP). Every call carries the bearer
// token, credentials and the client environment header, and times out after 10 s. A 401 on any call
// but login triggers one token refresh, shared by all calls that fail at the same time, and a retry.
// A refused refresh ends the session and sends the user to /login.
import type { ApiEnvelope, Tokens } from '../types/api';
import { CLIENT_ENVIRONMENT, CLIENT_ENVIRONMENT_HEADER, REQUEST_TIMEOUT_MS } from './constants';
import { ApiError, buildErrorMessage } from './errors';
import { sessionStore } from './session-store';
import { tokenStorage } from './token-storage';

export interface AuthFetchInit extends RequestInit {
  /** Do not refresh and retry on 401 (the sign-in and refresh calls themselves). */
  skipAuthRefresh?: boolean;
  timeoutMs?: number;
}

const NO_REFRESH_PATHS = ['/api/auth/login', '/api/auth/refresh'];

let onSessionExpired: () => void = () => {};

/** Who takes the user to /login when the session cannot be renewed (the router, set at start). */
export function setSessionExpiredHandler(handler: () => void) {
  onSessionExpired = handler;
}

function expireSession() {
  sessionStore.clear();
  onSessionExpired();
}

function pathOf(input: string | URL): string {
  try {
    return new URL(String(input), window.location.origin).pathname;
  } catch {
    return String(input);
  }
}

/** One attempt: headers, credentials, and a time-out that also honours the caller's own signal. */
async function send(input: string | URL, init: AuthFetchInit, token: string | null): Promise<Response> {
  const headers = new Headers(init.headers);
  if (token) headers.set('Authorization', `Bearer ${token}`);
  else headers.delete('Authorization');
  headers.set(CLIENT_ENVIRONMENT_HEADER, CLIENT_ENVIRONMENT);

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, init.timeoutMs ?? REQUEST_TIMEOUT_MS);
  const outer = init.signal;
  const forward = () => controller.abort();
  if (outer?.aborted) controller.abort();
  else outer?.addEventListener('abort', forward, { once: true });

  const { skipAuthRefresh: _skip, timeoutMs: _timeout, signal: _signal, ...rest } = init;
  try {
    return await fetch(input, { ...rest, headers, credentials: 'include', signal: controller.signal });
  } catch (err) {
    if (timedOut) throw new ApiError('The request timed out', { kind: 'timeout' });
    throw err;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', forward);
  }
}

async function readEnvelope(response: Response): Promise<ApiEnvelope | null> {
  const text = await response.text().catch(() => '');
  if (!text) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' ? (parsed as ApiEnvelope) : null;
  } catch {
    return null;
  }
}

let refreshing: Promise<string> | null = null;

async function runRefresh(): Promise<string> {
  const refreshToken = tokenStorage.getRefreshToken();
  if (!refreshToken) {
    expireSession();
    throw new ApiError('No refresh token available', { status: 401 });
  }
  let response: Response;
  try {
    response = await send(
      '/api/auth/refresh',
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ refreshToken }),
      },
      null,
    );
  } catch (err) {
    // No answer: the session may still be valid, so keep it; the original call fails instead.
    if (err instanceof ApiError) throw err;
    throw new ApiError('Token refresh failed', { kind: 'network' });
  }
  const body = (await readEnvelope(response)) as ApiEnvelope<{ tokens?: Tokens }> | null;
  const tokens = body?.data?.tokens;
  if (!response.ok || !body?.success || !tokens?.accessToken || !tokens.refreshToken) {
    if (response.status < 500) expireSession();
    throw new ApiError('Token refresh failed', { status: response.status, body });
  }
  tokenStorage.setTokens(tokens);
  return tokens.accessToken;
}

/** The Web Lock that lets one tab of this browser refresh at a time (the tokens are shared). */
export const REFRESH_LOCK = 'billflow-token-refresh';

/** Runs `work` holding the tabs' refresh lock, where the browser has Web Locks. */
function inTabsLock<T>(work: () => Promise<T>): Promise<T> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  return locks ? (locks.request(REFRESH_LOCK, work) as Promise<T>) : work();
}

/**
 * Renews the access token with the stored refresh token. Calls made while a refresh is under way
 * share it, so the (rotating) refresh token is spent exactly once; across tabs, a Web Lock lets one
 * refresh at a time, and a tab that waited finds the pair the other stored and uses it. (Should two
 * tabs still send one token, the server answers both with the same pair within a few seconds.)
 */
export function refreshAccessToken(): Promise<string> {
  const seen = tokenStorage.getRefreshToken();
  refreshing ??= inTabsLock(async () => {
    const stored = tokenStorage.getRefreshToken();
    const access = tokenStorage.getAccessToken();
    if (stored && stored !== seen && access) return access;
    return runRefresh();
  }).finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/**
 * fetch with the session: bearer token, credentials, client header, time-out, and on a 401 one
 * refresh and retry. Also the `fetch` of the GraphQL client.
 */
export async function authFetch(input: string | URL, init: AuthFetchInit = {}): Promise<Response> {
  const token = tokenStorage.getAccessToken();
  const response = await send(input, init, token);
  if (response.status !== 401 || init.skipAuthRefresh || NO_REFRESH_PATHS.includes(pathOf(input)))
    return response;

  // Another call may have refreshed while this one was in flight: then just retry with the new token.
  const current = tokenStorage.getAccessToken();
  const fresh = current && current !== token ? current : await refreshAccessToken();
  return send(input, init, fresh);
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | boolean | null | undefined>;
  signal?: AbortSignal;
  /** Message when the server gives none (each API function has its own, e.g. 'Failed to fetch companies'). */
  fallbackMessage?: string;
  skipAuthRefresh?: boolean;
  timeoutMs?: number;
}

function withQuery(path: string, query: RequestOptions['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}${path.includes('?') ? '&' : '?'}${qs}` : path;
}

/** A REST call; resolves with the envelope, rejects with an ApiError (also when success is false). */
export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<ApiEnvelope<T>> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await authFetch(withQuery(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      skipAuthRefresh: options.skipAuthRefresh,
      timeoutMs: options.timeoutMs,
    });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (options.signal?.aborted) throw err;
    throw new ApiError(err instanceof Error ? err.message : 'Network error', { kind: 'network' });
  }
  const body = await readEnvelope(response);
  if (!response.ok || !body || body.success === false) {
    throw new ApiError(buildErrorMessage(body, options.fallbackMessage), { status: response.status, body });
  }
  return body as ApiEnvelope<T>;
}

type Opts = Omit<RequestOptions, 'method' | 'body'>;

export const api = {
  get: <T>(path: string, options?: Opts) => apiRequest<T>(path, { ...options, method: 'GET' }),
  post: <T>(path: string, body?: unknown, options?: Opts) =>
    apiRequest<T>(path, { ...options, method: 'POST', body }),
  put: <T>(path: string, body?: unknown, options?: Opts) =>
    apiRequest<T>(path, { ...options, method: 'PUT', body }),
  patch: <T>(path: string, body?: unknown, options?: Opts) =>
    apiRequest<T>(path, { ...options, method: 'PATCH', body }),
  delete: <T>(path: string, options?: Opts) => apiRequest<T>(path, { ...options, method: 'DELETE' }),
};

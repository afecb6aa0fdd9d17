import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, mockFetch, sampleUser } from '../testing/fetch-mock';
import { api, authFetch, refreshAccessToken, setSessionExpiredHandler } from './api-client';
import { ApiError } from './errors';
import { sessionStore } from './session-store';
import { tokenStorage } from './token-storage';

const bearer = (h: Headers) => h.get('Authorization');

beforeEach(() => {
  localStorage.clear();
  sessionStore.setUser(sampleUser);
  tokenStorage.setTokens({ accessToken: 'access-1', refreshToken: 'refresh-1' });
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  setSessionExpiredHandler(() => {});
});

describe('every call', () => {
  it('sends the bearer token, credentials and the client environment header', async () => {
    const { calls } = mockFetch(() => json(200, { success: true, data: { ok: 1 } }));
    const body = await api.get<{ ok: number }>('/api/things', {
      query: { page: 2, search: '', status: undefined },
    });
    expect(body.data).toEqual({ ok: 1 });
    expect(calls[0].url).toBe('/api/things?page=2');
    expect(bearer(calls[0].headers)).toBe('Bearer access-1');
    expect(calls[0].headers.get('X-Client-Environment')).toBe('web');
    expect(calls[0].credentials).toBe('include');
  });

  it('treats success:false as a failure and builds its message', async () => {
    mockFetch(() => json(200, { success: false, message: 'Nope' }));
    await expect(api.get('/api/things')).rejects.toMatchObject({
      name: 'ApiError',
      message: 'Nope',
      status: 200,
    });
  });

  it('uses the call’s fallback message when the server gives none', async () => {
    mockFetch(() => new Response('<html>oops</html>', { status: 502 }));
    const err = await api
      .get('/api/company/companies', { fallbackMessage: 'Failed to fetch companies' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe('Failed to fetch companies');
    expect(err.status).toBe(502);
  });

  it('reports no response when the network fails', async () => {
    mockFetch(() => {
      throw new TypeError('Failed to fetch');
    });
    const err = await api.get('/api/things').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBeNull();
    expect(err.isNoResponse).toBe(true);
  });

  it('times out after 10000 ms', async () => {
    vi.useFakeTimers();
    mockFetch(
      (call) =>
        new Promise<Response>((_, reject) => {
          call.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        }),
    );
    const pending = api.get('/api/slow').catch((e) => e);
    await vi.advanceTimersByTimeAsync(9_999);
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const err = await pending;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.kind).toBe('timeout');
    expect(err.isNoResponse).toBe(true);
  });
});

describe('401: one refresh and a retry', () => {
  it('refreshes, stores the rotated tokens and retries with the new token', async () => {
    const { calls } = mockFetch((call) => {
      if (call.url === '/api/auth/refresh') {
        return json(200, {
          success: true,
          data: { tokens: { accessToken: 'access-2', refreshToken: 'refresh-2' } },
        });
      }
      return bearer(call.headers) === 'Bearer access-2'
        ? json(200, { success: true, data: 'fresh' })
        : json(401, { success: false, error: 'Authentication required' });
    });
    const body = await api.get<string>('/api/auth/me');
    expect(body.data).toBe('fresh');
    expect(calls.map((c) => c.url)).toEqual(['/api/auth/me', '/api/auth/refresh', '/api/auth/me']);
    expect(calls[1].body).toEqual({ refreshToken: 'refresh-1' });
    expect(bearer(calls[1].headers)).toBeNull();
    expect(tokenStorage.getAccessToken()).toBe('access-2');
    expect(tokenStorage.getRefreshToken()).toBe('refresh-2');
  });

  it('takes the tabs’ Web Lock, and uses the pair another tab stored while it waited', async () => {
    const requested: string[] = [];
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    // Another tab holds the lock and refreshes meanwhile: its new pair lands in the shared storage.
    vi.stubGlobal('navigator', {
      ...navigator,
      locks: {
        request: async (name: string, work: () => Promise<unknown>) => {
          requested.push(name);
          await held;
          return work();
        },
      },
    });
    const { calls } = mockFetch(() => json(500, { success: false }));
    const pending = refreshAccessToken();
    tokenStorage.setTokens({ accessToken: 'access-other-tab', refreshToken: 'refresh-other-tab' });
    release();
    expect(await pending).toBe('access-other-tab');
    expect(requested).toEqual(['billflow-token-refresh']);
    expect(calls).toHaveLength(0);
  });

  it('shares one refresh among calls that fail at the same time', async () => {
    let refreshes = 0;
    const { calls } = mockFetch(async (call) => {
      if (call.url === '/api/auth/refresh') {
        refreshes += 1;
        await new Promise((r) => setTimeout(r, 20));
        return json(200, {
          success: true,
          data: { tokens: { accessToken: 'access-2', refreshToken: 'refresh-2' } },
        });
      }
      return bearer(call.headers) === 'Bearer access-2'
        ? json(200, { success: true, data: call.url })
        : json(401, { success: false, error: 'Authentication required' });
    });
    const results = await Promise.all(
      ['/api/a', '/api/b', '/api/c', '/api/d'].map((p) => api.get<string>(p)),
    );
    expect(results.map((r) => r.data)).toEqual(['/api/a', '/api/b', '/api/c', '/api/d']);
    expect(refreshes).toBe(1);
    expect(calls.filter((c) => c.url === '/api/auth/refresh')).toHaveLength(1);
  });

  it('retries without refreshing again when another call already renewed the token', async () => {
    let refreshes = 0;
    mockFetch((call) => {
      if (call.url === '/api/auth/refresh') refreshes += 1;
      if (call.url === '/api/late') {
        // The token changed while this call was in flight.
        tokenStorage.setTokens({ accessToken: 'access-3', refreshToken: 'refresh-3' });
      }
      return bearer(call.headers) === 'Bearer access-3'
        ? json(200, { success: true, data: 'ok' })
        : json(401, { success: false, error: 'expired' });
    });
    await expect(api.get('/api/late')).resolves.toMatchObject({ data: 'ok' });
    expect(refreshes).toBe(0);
  });

  it('never refreshes for the sign-in call', async () => {
    const { calls } = mockFetch(() => json(401, { success: false, error: 'Invalid email or password' }));
    const err = await api.post('/api/auth/login', { email: 'a@b.c', password: 'x' }).catch((e) => e);
    expect(err.status).toBe(401);
    expect(calls).toHaveLength(1);
  });

  it('ends the session and goes to /login when the refresh is refused', async () => {
    const expired = vi.fn();
    setSessionExpiredHandler(expired);
    mockFetch((call) =>
      call.url === '/api/auth/refresh'
        ? json(401, { success: false, error: 'Invalid refresh token' })
        : json(401, { success: false, error: 'Authentication required' }),
    );
    const err = await api.get('/api/things').catch((e) => e);
    expect(err.message).toBe('Token refresh failed');
    expect(expired).toHaveBeenCalledTimes(1);
    expect(tokenStorage.getAccessToken()).toBeNull();
    expect(tokenStorage.getRefreshToken()).toBeNull();
    expect(sessionStore.getState()).toMatchObject({ user: null, isAuthenticated: false });
    expect(localStorage.getItem('auth-storage')).toBeNull();
  });

  it('fails with "No refresh token available" without a stored refresh token', async () => {
    const expired = vi.fn();
    setSessionExpiredHandler(expired);
    localStorage.removeItem('refresh_token');
    mockFetch(() => json(401, { success: false }));
    await expect(refreshAccessToken()).rejects.toThrow('No refresh token available');
    expect(expired).toHaveBeenCalled();
  });

  it('keeps the session when the refresh gets no answer', async () => {
    const expired = vi.fn();
    setSessionExpiredHandler(expired);
    mockFetch((call) => {
      if (call.url === '/api/auth/refresh') throw new TypeError('Failed to fetch');
      return json(401, { success: false });
    });
    await expect(authFetch('/api/things')).rejects.toThrow('Token refresh failed');
    expect(expired).not.toHaveBeenCalled();
    expect(tokenStorage.getRefreshToken()).toBe('refresh-1');
  });
});

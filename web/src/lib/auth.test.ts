import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, mockFetch, sampleUser } from '../testing/fetch-mock';
import { checkSession, displayName, login, logout } from './auth';
import { sessionStore } from './session-store';
import { tokenStorage } from './token-storage';

beforeEach(() => {
  localStorage.clear();
  sessionStore.clear();
});
afterEach(() => vi.unstubAllGlobals());

describe('session', () => {
  it('signs in: stores both tokens and persists the user under auth-storage', async () => {
    const { calls } = mockFetch(() =>
      json(200, {
        success: true,
        data: { user: sampleUser, tokens: { accessToken: 'a1', refreshToken: 'r1' } },
      }),
    );
    await login('ada@billflow.test', 'secret1');
    expect(calls[0]).toMatchObject({
      url: '/api/auth/login',
      method: 'POST',
      body: { email: 'ada@billflow.test', password: 'secret1' },
    });
    expect(localStorage.getItem('auth_token')).toBe('a1');
    expect(localStorage.getItem('refresh_token')).toBe('r1');
    expect(JSON.parse(localStorage.getItem('auth-storage') ?? '{}')).toEqual({
      state: { user: sampleUser, isAuthenticated: true },
      version: 0,
    });
    expect(sessionStore.getState()).toMatchObject({
      isAuthenticated: true,
      isLoading: false,
      user: sampleUser,
    });
  });

  it('rejects a sign-in answer without success or tokens with "Login failed"', async () => {
    mockFetch(() => json(200, { success: true, data: { user: sampleUser } }));
    await expect(login('ada@billflow.test', 'secret1')).rejects.toThrow('Login failed');
    expect(tokenStorage.getAccessToken()).toBeNull();
  });

  it('checks the session on load with the current-user call', async () => {
    tokenStorage.setTokens({ accessToken: 'a1', refreshToken: 'r1' });
    const { calls } = mockFetch(() => json(200, { success: true, data: sampleUser }));
    await checkSession();
    expect(calls[0].url).toBe('/api/auth/me');
    expect(sessionStore.getState()).toMatchObject({
      isAuthenticated: true,
      isLoading: false,
      user: sampleUser,
    });
  });

  it('clears the tokens when the current-user call answers 401', async () => {
    tokenStorage.setTokens({ accessToken: 'a1', refreshToken: 'r1' });
    mockFetch(() => json(401, { success: false, error: 'Authentication required' }));
    await checkSession();
    expect(tokenStorage.getAccessToken()).toBeNull();
    expect(tokenStorage.getRefreshToken()).toBeNull();
    expect(sessionStore.getState()).toMatchObject({ isAuthenticated: false, isLoading: false, user: null });
  });

  it('resolves to signed out at once without tokens', async () => {
    const { calls } = mockFetch(() => json(500, {}));
    await checkSession();
    expect(calls).toHaveLength(0);
    expect(sessionStore.getState()).toMatchObject({ isAuthenticated: false, isLoading: false });
  });

  it('signs out: posts the refresh token with the bearer, then ends the session', async () => {
    tokenStorage.setTokens({ accessToken: 'a1', refreshToken: 'r1' });
    sessionStore.setUser(sampleUser);
    const { calls } = mockFetch(() => json(200, { success: true }));
    await logout();
    expect(calls[0]).toMatchObject({ url: '/api/auth/logout', method: 'POST', body: { refreshToken: 'r1' } });
    expect(calls[0].headers.get('Authorization')).toBe('Bearer a1');
    expect(tokenStorage.getRefreshToken()).toBeNull();
    expect(sessionStore.getState().isAuthenticated).toBe(false);
  });

  it('shows first and last name, or the e-mail without a full name', () => {
    expect(displayName(sampleUser)).toBe('Ada Lovelace');
    expect(displayName({ ...sampleUser, lastName: null })).toBe('ada@billflow.test');
    expect(displayName({ ...sampleUser, firstName: ' ', lastName: ' ' })).toBe('ada@billflow.test');
  });
});

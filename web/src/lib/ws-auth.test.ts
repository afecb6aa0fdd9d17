import { describe, expect, it, vi } from 'vitest';
import { createWsAuth, isAuthClose } from './ws-auth';

describe('graphql-ws authentication', () => {
  it('sends the current token on connect', async () => {
    let token = 'a';
    const auth = createWsAuth({ getToken: () => token, refresh: vi.fn() });
    expect(await auth.connectionParams()).toEqual({ token: 'a' });
    token = 'b';
    expect(await auth.connectionParams()).toEqual({ token: 'b' });
  });

  it('refreshes before reconnecting after a 4403 or 4401 close', async () => {
    let token = 'stale';
    const refresh = vi.fn(async () => {
      token = 'fresh';
      return token;
    });
    const auth = createWsAuth({ getToken: () => token, refresh });
    await auth.connectionParams();
    auth.onClosed({ code: 4403, reason: 'Forbidden' });
    expect(await auth.connectionParams()).toEqual({ token: 'fresh' });
    expect(refresh).toHaveBeenCalledTimes(1);

    auth.onClosed({ code: 4401, reason: 'Unauthorized' });
    token = 'stale-again';
    // Someone else already replaced the refused token: no second refresh.
    expect(await auth.connectionParams()).toEqual({ token: 'stale-again' });
    expect(refresh).toHaveBeenCalledTimes(1);
  });

  it('does not refresh after an ordinary close', async () => {
    const refresh = vi.fn();
    const auth = createWsAuth({ getToken: () => 't', refresh });
    await auth.connectionParams();
    auth.onClosed({ code: 1006, reason: '' });
    await auth.connectionParams();
    expect(refresh).not.toHaveBeenCalled();
    expect(isAuthClose({ code: 4403, reason: '' })).toBe(true);
    expect(isAuthClose(new Error('x'))).toBe(false);
  });

  it('still connects (without a token) when the refresh fails', async () => {
    let token: string | null = 'stale';
    const auth = createWsAuth({
      getToken: () => token,
      refresh: async () => {
        token = null;
        throw new Error('Token refresh failed');
      },
    });
    await auth.connectionParams();
    auth.onClosed({ code: 4403, reason: 'Forbidden' });
    expect(await auth.connectionParams()).toEqual({ token: null });
  });
});

// Access tokens: verified once per process, yet a forged, tampered or expired token is refused
// every time, remembered or not.
import { describe, expect, it } from 'vitest';
import { AccessTokens } from './access-tokens.js';

describe('access tokens', () => {
  it('verifies its own tokens, again and again, and refuses another key and a tampered token', async () => {
    const tokens = new AccessTokens('secret-one-0123456789-0123456789', 60);
    const token = await tokens.sign(7, 'session-7');
    expect(await tokens.verify(token)).toEqual({ userId: 7, sessionId: 'session-7' });
    expect(await tokens.verify(token)).toEqual({ userId: 7, sessionId: 'session-7' });
    expect(await new AccessTokens('secret-two-0123456789-0123456789', 60).verify(token)).toBeNull();
    const [head, body, sig] = token.split('.');
    const otherBody = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), sub: '1' }),
    ).toString('base64url');
    expect(await tokens.verify(`${head}.${otherBody}.${sig}`)).toBeNull();
    expect(await tokens.verify('not a token')).toBeNull();
  });

  it('refuses a remembered token once it has expired', async () => {
    const tokens = new AccessTokens('secret-one-0123456789-0123456789', 1);
    const token = await tokens.sign(8, 'session-8');
    expect(await tokens.verify(token)).toEqual({ userId: 8, sessionId: 'session-8' });
    // exp is whole seconds: wait past it.
    await new Promise((r) => setTimeout(r, 2100));
    expect(await tokens.verify(token)).toBeNull();
    expect(await tokens.verify(token)).toBeNull();
  });
});

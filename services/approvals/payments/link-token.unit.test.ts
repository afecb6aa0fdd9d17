// The e-mail link's token: it round-trips the link, carries nothing but the link's id, approval,
// action and expiry, and is refused when forged, tampered, expired, for another approval or action,
// or signed with the app's access-token key (a link key of its own).
import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { LINK_TOKEN_TEXTS, signLinkToken, verifyLinkToken } from './link-token.js';

const SECRET = 'a-jwt-secret-of-at-least-thirty-two-characters';
const APPROVAL = '3f1c2b9e-5d7a-4c1e-9b2f-0a1b2c3d4e5f';
const link = {
  linkId: 'link-1',
  approvalId: APPROVAL,
  action: 'bank-uploaded' as const,
  expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
};

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: Error) => e.message,
  );

describe('link tokens', () => {
  it('give back the link they were signed for, and the same token for the same link', async () => {
    const token = await signLinkToken(SECRET, link);
    expect(await signLinkToken(SECRET, link)).toBe(token);
    const got = await verifyLinkToken(SECRET, token, { approvalId: APPROVAL, action: 'bank-uploaded' });
    expect(got).toMatchObject({ linkId: 'link-1', approvalId: APPROVAL, action: 'bank-uploaded' });
    expect(Math.abs(new Date(got.expiresAt).getTime() - new Date(link.expiresAt).getTime())).toBeLessThan(
      1000,
    );
    // The approval's id in any case, and no action asked: accepted too.
    await verifyLinkToken(SECRET, token, { approvalId: APPROVAL.toUpperCase() });
  });

  it('carry the link, the approval, the action and the expiry only', async () => {
    const claims = decodeJwt(await signLinkToken(SECRET, link));
    expect(Object.keys(claims).sort()).toEqual(['act', 'aid', 'exp', 'lid']);
  });

  it('are refused when forged, tampered, signed with the access-token key, or not a token', async () => {
    const claims = { lid: 'link-1', aid: APPROVAL, act: 'bank-uploaded' };
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const withRawSecret = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(exp)
      .sign(new TextEncoder().encode(SECRET));
    const token = await signLinkToken(SECRET, link);
    const [h, p, s] = token.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...claims, aid: 'other', exp })).toString('base64url')}.${s}`;
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`;
    for (const bad of [withRawSecret, tampered, none, 'not-a-token', ''])
      expect(await refusal(verifyLinkToken(SECRET, bad, { approvalId: APPROVAL }))).toBe(
        LINK_TOKEN_TEXTS.invalid,
      );
    expect(await refusal(verifyLinkToken(`${SECRET}x`, token, { approvalId: APPROVAL }))).toBe(
      LINK_TOKEN_TEXTS.invalid,
    );
  });

  it('are refused once expired, for another approval, or for another action', async () => {
    const expired = await signLinkToken(SECRET, {
      ...link,
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    expect(await refusal(verifyLinkToken(SECRET, expired, { approvalId: APPROVAL }))).toBe(
      'This link has expired',
    );
    const token = await signLinkToken(SECRET, link);
    expect(
      await refusal(verifyLinkToken(SECRET, token, { approvalId: '00000000-0000-4000-8000-000000000000' })),
    ).toBe('This link is for another approval');
    expect(
      await refusal(verifyLinkToken(SECRET, token, { approvalId: APPROVAL, action: 'payment-completed' })),
    ).toBe('This link is for another action');
  });
});

// The token of an e-mail link (confirm the bank upload, confirm the payment): an HS256 JWT that
// carries the link's id, the approval's id, the action and the expiry, and nothing else. The
// recipient is not in it: the link's ApprovalLinkIssued event holds the address (sealed), so a token
// read off a screen or a proxy log gives away no address. Its key is derived from JWT_SECRET for this
// purpose alone (HKDF), so a link token is never an access token and an access token never a link.
//
// The signature proves the link was made here; whether it is still good (issued on this approval,
// unused, the file not regenerated since) is the decider's to say (payment-decider.ts checkLink).
import { hkdfSync } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { LINK_ACTIONS, type LinkAction } from '../../../schema/approvals/payment-events.js';
import { paymentClock } from '../../shared/payment-clock.js';

const ALG = 'HS256';

/** Why a token is refused before the decider sees it; each has the text the link's page shows. */
export type LinkTokenProblem = 'invalid' | 'expired' | 'wrong-approval' | 'wrong-action';

export const LINK_TOKEN_TEXTS: Record<LinkTokenProblem, string> = {
  invalid: 'This link is not valid',
  expired: 'This link has expired',
  'wrong-approval': 'This link is for another approval',
  'wrong-action': 'This link is for another action',
};

export class LinkTokenError extends Error {
  constructor(readonly problem: LinkTokenProblem) {
    super(LINK_TOKEN_TEXTS[problem]);
    this.name = 'LinkTokenError';
  }
}

export interface LinkClaims {
  linkId: string;
  approvalId: string;
  action: LinkAction;
  /** When the link stops working (ISO), as the link's event says. */
  expiresAt: string;
}

const keys = new Map<string, Uint8Array>();
/** The link key of a JWT_SECRET: derived once per process. */
function linkKey(secret: string): Uint8Array {
  let key = keys.get(secret);
  if (!key) {
    key = new Uint8Array(hkdfSync('sha256', secret, 'billflow', 'approval-link-token v1', 32));
    keys.set(secret, key);
  }
  return key;
}

/** Signs a link's token. The same link gives the same token (a retried job mails the same link). */
export async function signLinkToken(secret: string, claims: LinkClaims): Promise<string> {
  return new SignJWT({ lid: claims.linkId, aid: claims.approvalId, act: claims.action })
    .setProtectedHeader({ alg: ALG })
    .setExpirationTime(Math.floor(new Date(claims.expiresAt).getTime() / 1000))
    .sign(linkKey(secret));
}

/**
 * The link a token names, after checking its signature, expiry, approval and action. Throws
 * LinkTokenError: `invalid` (forged, malformed, another key), `expired`, `wrong-approval`, `wrong-action`.
 */
export async function verifyLinkToken(
  secret: string,
  token: string,
  expected: { approvalId: string; action?: LinkAction },
): Promise<LinkClaims> {
  if (typeof token !== 'string' || token.length === 0 || token.length > 2000)
    throw new LinkTokenError('invalid');
  let payload: Record<string, unknown>;
  try {
    // jose checks the signature before the expiry: an expired token here was made by us.
    ({ payload } = await jwtVerify(token, linkKey(secret), {
      algorithms: [ALG],
      currentDate: paymentClock.now(),
    }));
  } catch (err) {
    throw new LinkTokenError(err instanceof joseErrors.JWTExpired ? 'expired' : 'invalid');
  }
  const { lid, aid, act, exp } = payload;
  if (
    typeof lid !== 'string' ||
    typeof aid !== 'string' ||
    typeof exp !== 'number' ||
    !LINK_ACTIONS.includes(act as LinkAction)
  )
    throw new LinkTokenError('invalid');
  if (aid.toLowerCase() !== expected.approvalId.toLowerCase()) throw new LinkTokenError('wrong-approval');
  if (expected.action && act !== expected.action) throw new LinkTokenError('wrong-action');
  return {
    linkId: lid,
    approvalId: aid,
    action: act as LinkAction,
    expiresAt: new Date(exp * 1000).toISOString(),
  };
}

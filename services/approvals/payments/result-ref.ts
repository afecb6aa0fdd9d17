// The result reference of an e-mail link's confirmation: what the server found when the link's button was
// pressed (approval, action, outcome and, for a refusal, its text), signed so that the public
// /direct-action-result page states only what the server checked. The page's query (action, approvalId,
// success, error, noAction) is anyone's to type; the reference is not.
//
// An HS256 JWT, short-lived, signed with a key derived from JWT_SECRET for this purpose alone (HKDF,
// as link tokens are: link-token.ts), so a result reference is never a link token nor an access token.
import { hkdfSync } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { LINK_ACTIONS, type LinkAction } from '../../../schema/approvals/payment-events.js';

const ALG = 'HS256';

/** How long a result reference is good for: the redirect follows at once; a reload soon after still works. */
export const RESULT_REF_TTL_SECONDS = 15 * 60;

/** The outcomes of a press: the step done, already done before, or refused. */
export const RESULT_OUTCOMES = ['success', 'no-action', 'failure'] as const;
export type ResultOutcome = (typeof RESULT_OUTCOMES)[number];

export interface ResultClaims {
  approvalId: string;
  action: LinkAction;
  outcome: ResultOutcome;
  /** A refusal's text, as the server gave it; null for a success or no action. */
  error: string | null;
}

export interface VerifiedResult extends ResultClaims {
  /** When the reference stops being accepted (ISO). */
  expiresAt: string;
}

const keys = new Map<string, Uint8Array>();
function resultKey(secret: string): Uint8Array {
  let key = keys.get(secret);
  if (!key) {
    key = new Uint8Array(hkdfSync('sha256', secret, 'billflow', 'direct-action-result v1', 32));
    keys.set(secret, key);
  }
  return key;
}

/** Signs a press's outcome. */
export async function signResultRef(secret: string, claims: ResultClaims, now = new Date()): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({
    aid: claims.approvalId,
    act: claims.action,
    out: claims.outcome,
    ...(claims.error !== null ? { err: claims.error.slice(0, 300) } : {}),
  })
    .setProtectedHeader({ alg: ALG })
    .setIssuedAt(iat)
    .setExpirationTime(iat + RESULT_REF_TTL_SECONDS)
    .sign(resultKey(secret));
}

/** The outcome a reference states, or null when it is not one of ours, altered, malformed or expired. */
export async function verifyResultRef(secret: string, ref: unknown): Promise<VerifiedResult | null> {
  if (typeof ref !== 'string' || ref.length === 0 || ref.length > 2000) return null;
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(ref, resultKey(secret), { algorithms: [ALG] }));
  } catch {
    return null;
  }
  const { aid, act, out, err, exp } = payload;
  if (
    typeof aid !== 'string' ||
    typeof exp !== 'number' ||
    !LINK_ACTIONS.includes(act as LinkAction) ||
    !RESULT_OUTCOMES.includes(out as ResultOutcome) ||
    (err !== undefined && typeof err !== 'string')
  )
    return null;
  return {
    approvalId: aid,
    action: act as LinkAction,
    outcome: out as ResultOutcome,
    error: out === 'failure' ? ((err as string | undefined) ?? null) : null,
    expiresAt: new Date(exp * 1000).toISOString(),
  };
}

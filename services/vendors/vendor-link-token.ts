// The token of a link mailed to a vendor's contact on record about a held bank detail change: "this
// was not me" (the notice) or the micro-deposit entry. An HS256 JWT bound to its vendor, its change
// and its link (the notice's link id, or the verification's id), with its purpose and expiry, and
// nothing else: no address, no number. Its key is derived from JWT_SECRET for this purpose alone
// (HKDF), so it is never an access token, an approval's link or a result reference.
//
// The signature and expiry are checked here; whether the link still acts (its change pending, the
// notice's or the latest verification's link, not locked) is the vendor decider's to say.
import { hkdfSync } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';

const ALG = 'HS256';

export const VENDOR_LINK_PURPOSES = ['not-me', 'micro-deposits'] as const;
export type VendorLinkPurpose = (typeof VENDOR_LINK_PURPOSES)[number];

/** How long a link mailed to a vendor works. */
export const VENDOR_LINK_TTL_DAYS = 14;

export interface VendorLinkClaims {
  purpose: VendorLinkPurpose;
  vendorId: number;
  changeId: string;
  /** The notice's link id, or the verification's id. */
  linkId: string;
  /** ISO. */
  expiresAt: string;
}

export type VendorLinkProblem = 'invalid' | 'expired' | 'wrong-purpose';

export const VENDOR_LINK_TEXTS: Record<VendorLinkProblem, string> = {
  invalid: 'This link is not valid',
  expired: 'This link has expired',
  'wrong-purpose': 'This link is for another action',
};

export class VendorLinkError extends Error {
  constructor(readonly problem: VendorLinkProblem) {
    super(VENDOR_LINK_TEXTS[problem]);
    this.name = 'VendorLinkError';
  }
}

const keys = new Map<string, Uint8Array>();
function linkKey(secret: string): Uint8Array {
  let key = keys.get(secret);
  if (!key) {
    key = new Uint8Array(hkdfSync('sha256', secret, 'billflow', 'vendor-banking-link v1', 32));
    keys.set(secret, key);
  }
  return key;
}

/** The same link gives the same token (a job run again mails the same link). */
export function signVendorLinkToken(secret: string, c: VendorLinkClaims): Promise<string> {
  return new SignJWT({ pur: c.purpose, vid: c.vendorId, cid: c.changeId, lid: c.linkId })
    .setProtectedHeader({ alg: ALG })
    .setExpirationTime(Math.floor(new Date(c.expiresAt).getTime() / 1000))
    .sign(linkKey(secret));
}

/** The link a token names; throws VendorLinkError (forged, altered, malformed, expired, other purpose). */
export async function verifyVendorLinkToken(
  secret: string,
  token: unknown,
  purpose: VendorLinkPurpose,
): Promise<VendorLinkClaims> {
  if (typeof token !== 'string' || token.length === 0 || token.length > 2000)
    throw new VendorLinkError('invalid');
  let payload: Record<string, unknown>;
  try {
    // jose checks the signature before the expiry: an expired token here was made by us.
    ({ payload } = await jwtVerify(token, linkKey(secret), { algorithms: [ALG] }));
  } catch (err) {
    throw new VendorLinkError(err instanceof joseErrors.JWTExpired ? 'expired' : 'invalid');
  }
  const { pur, vid, cid, lid, exp } = payload;
  if (
    !VENDOR_LINK_PURPOSES.includes(pur as VendorLinkPurpose) ||
    typeof vid !== 'number' ||
    !Number.isSafeInteger(vid) ||
    vid <= 0 ||
    typeof cid !== 'string' ||
    typeof lid !== 'string' ||
    typeof exp !== 'number'
  )
    throw new VendorLinkError('invalid');
  if (pur !== purpose) throw new VendorLinkError('wrong-purpose');
  return {
    purpose: pur as VendorLinkPurpose,
    vendorId: vid,
    changeId: cid,
    linkId: lid,
    expiresAt: new Date(exp * 1000).toISOString(),
  };
}

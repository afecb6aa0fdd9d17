// The presses on a vendor's e-mail links, declared once (services/app/endpoints.ts): "this was not
// me" (PressNotMe) and the micro-deposit amounts (EnterMicroDeposits). Public: the link's token, in
// the query, is the credential; the use case counts each press against the links' rate limits by the
// caller's address. What a link shows before its press is read in api/rest/vendor-verification-routes.ts.
import { z } from 'zod';
import { MicroDepositEntryResult, NotMeResult } from '../../schema/vendors/answers.js';
import { MicroDepositEntryInput } from '../../schema/vendors/commands.js';
import { declareCommand } from '../app/endpoints.js';
import { enterMicroDeposits, pressNotMe } from './banking-links.js';

export const VendorLinkTokenQuery = z.object({
  token: z.string().max(2000).describe('The e-mail link’s token'),
});
/** What every vendor link's route says of its refusals. */
export const VENDOR_LINK_REFUSALS =
  'No sign-in: the token is the credential. Refused: 403 for a link that is not valid, altered or expired; 409 when it can no longer act (its text says why); 429 past the links’ rate limits.';

const SCOPE = 'the held change the link was sent for, by the vendor’s contact on record';
const tokenOf = (query: unknown) => (query as { token?: string }).token;
const linkDoc = (summary: string, data: z.ZodType, body?: z.ZodType) => ({
  summary,
  description: VENDOR_LINK_REFUSALS,
  tags: ['vendors'],
  auth: false as const,
  querystring: VendorLinkTokenQuery,
  ...(body ? { body } : {}),
  data,
  errors: [403, 409, 429],
});

export const vendorLinkEndpoints = [
  declareCommand({
    name: 'PressNotMe',
    permission: 'public',
    scope: SCOPE,
    run: (app, _actor, token: string | undefined, caller) => pressNotMe(app, { token, ip: caller.ip }),
    rest: {
      method: 'POST',
      path: '/api/vendors/banking-links/not-me',
      input: (r) => tokenOf(r.query),
      message: (r) => r.message,
      doc: linkDoc(
        '"This was not me" pressed: the change is frozen (it can then only be rejected) and every ADMIN is alerted; pressed again, nothing more happens',
        NotMeResult,
      ),
    },
    // REST only: the vendor's page, without sign-in.
  }),
  declareCommand({
    name: 'EnterMicroDeposits',
    permission: 'public',
    scope: SCOPE,
    run: (app, _actor, { token, body }: { token: string | undefined; body: unknown }, caller) =>
      enterMicroDeposits(app, { token, ip: caller.ip }, body),
    rest: {
      method: 'POST',
      path: '/api/vendors/banking-links/micro-deposits',
      input: (r) => ({ token: tokenOf(r.query), body: r.body }),
      message: (r) => r.message,
      doc: linkDoc(
        'Enter the two micro-deposits (either order, as the statement shows them): the right ones make the change live; a wrong pair takes one of three tries, and the last locks the check',
        MicroDepositEntryResult,
        MicroDepositEntryInput,
      ),
    },
  }),
];

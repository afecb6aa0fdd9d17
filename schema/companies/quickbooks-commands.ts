// Inputs of the QuickBooks connection calls.
import { z } from 'zod';
import { plainText, secretText } from '../shared/text-rules.js';

const clientId = plainText(200, 'Missing Client ID').pipe(z.string().min(1, 'Missing Client ID'));
const clientSecret = secretText(1, 'Missing Client Secret').refine(
  (v) => v.trim() !== '',
  'Missing Client Secret',
);
const isSandbox = z.boolean().optional().default(true);

export const QbCredentialsInput = z.object({
  qbClientId: clientId,
  qbClientSecret: clientSecret,
  qbIsSandbox: isSandbox,
});

export const QbOAuthStartInput = z.object({
  qbClientId: clientId,
  qbClientSecret: clientSecret,
  qbIsSandbox: isSandbox,
  qbCallbackUrl: z
    .string({ error: 'Missing Callback URL' })
    .max(2048, 'Invalid callback URL')
    .trim()
    .min(1, 'Missing Callback URL')
    .refine((v) => {
      try {
        const u = new URL(v);
        return (
          (u.protocol === 'https:' || u.protocol === 'http:') &&
          u.pathname.endsWith('/api/company/companies/qb-oauth/callback')
        );
      } catch {
        return false;
      }
    }, 'The callback URL must end in /api/company/companies/qb-oauth/callback'),
});

/** What Intuit (or the simulator) sends to the callback. */
export const QbOAuthCallbackInput = z.object({
  code: z.string().max(2000).optional(),
  state: z.string().max(200).optional(),
  realmId: z.string().max(40).regex(/^\d+$/, 'Invalid realm id').optional(),
  error: z.string().max(200).optional(),
});

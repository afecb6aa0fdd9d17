// Inputs of the vendor calls, REST and GraphQL
// alike. Bank details pass the form's rules and the ABA check digit (reference/nacha.md).
import { z } from 'zod';
import { routingCheckDigitOk } from '../companies/commands.js';
import { MAX_ROW_ID } from '../shared/ids.js';
import { plainText } from '../shared/text-rules.js';

const id = z.coerce
  .number({ error: 'Invalid id' })
  .int('Invalid id')
  .positive('Invalid id')
  .max(MAX_ROW_ID, 'Invalid id');

const flag = z.preprocess(
  (v) => (v === 'true' || v === true ? true : v === 'false' || v === false ? false : v),
  z.boolean({ error: 'Must be true or false' }),
);

export const VendorListInput = z.object({
  search: z.preprocess((v) => (v === '' ? undefined : v), plainText(255).optional()),
  companyId: z.preprocess((v) => (v === '' ? undefined : v), id.optional()),
  hasBanking: z.preprocess((v) => (v === '' ? undefined : v), flag.optional()),
  active: z.preprocess((v) => (v === '' ? undefined : v), flag.optional()),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const VendorGetInput = z.object({
  showUnmasked: z.preprocess((v) => (v === undefined || v === '' ? false : v), flag),
});

/**
 * The fewest letters or digits an account number may have. NACHA sets only a maximum (the entry's DFI
 * account number field holds 17 characters); US banks issue numbers of 5 to 17 digits in practice,
 * mostly 8 to 12. A masked number keeps at least four hidden (shownTail), so at 5 it still shows one;
 * at 4 or fewer it could show nothing, and "****1234" read as masked was the whole number.
 */
const ACCOUNT_NUMBER_MIN = 5;
const ACCOUNT_TOO_SHORT = `Account number must have at least ${ACCOUNT_NUMBER_MIN} digits`;

/** The vendor banking form, checked again here with the bank's own rule. */
export const BankingInput = z.object({
  routingNumber: z
    .string({ error: 'Routing number must be 9 digits' })
    .max(40, 'Routing number must be 9 digits')
    .transform((v) => v.trim())
    .pipe(
      z
        .string()
        .regex(/^\d*$/, 'Routing number must contain only digits')
        .regex(/^\d{9}$/, 'Routing number must be 9 digits')
        .refine(routingCheckDigitOk, 'Routing number is not valid (check digit)'),
    ),
  accountNumber: z
    .string({ error: 'Account number is required' })
    .max(40, 'Account number must be 17 characters or less')
    .transform((v) => v.trim())
    .pipe(
      z
        .string()
        .min(1, 'Account number is required')
        .max(17, 'Account number must be 17 characters or less')
        .regex(/^[0-9A-Za-z-]+$/, 'Account number may only contain letters, digits and dashes')
        .refine((v) => v.replace(/-/g, '').length >= ACCOUNT_NUMBER_MIN, ACCOUNT_TOO_SHORT),
    ),
  accountType: z.preprocess(
    (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
    z.enum(['checking', 'savings'], { error: 'Account type must be checking or savings' }),
  ),
  bankName: z.preprocess(
    (v) => (v === '' || v === undefined ? null : v),
    plainText(100).pipe(z.string().max(100, 'Bank name must be 100 characters or less')).nullable(),
  ),
});
export type BankingInput = z.infer<typeof BankingInput>;

/** POST /api/vendors/batch-update-banking (the spec leaves its body open): up to 500 vendors. */
export const BatchBankingInput = z.object({
  updates: z
    .array(z.object({ vendorId: id }).and(BankingInput), { error: 'updates must be a list' })
    .min(1, 'Give at least one update')
    .max(500, 'At most 500 updates at once'),
});

export const VendorSyncInput = z.object({
  companyId: id,
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
});

export const VendorExportInput = z.object({
  companyId: z.preprocess((v) => (v === '' ? undefined : v), id.optional()),
  includeInactive: z.preprocess((v) => (v === undefined || v === '' ? false : v), flag),
  full: z
    .preprocess((v) => (v === undefined || v === '' ? false : v), flag)
    .describe(
      'ADMIN only: the full routing and account numbers (a file an import reads back as it is); the export is recorded on every vendor it holds',
    ),
});

export const MissingBankingInput = z.object({
  companyId: z.preprocess((v) => (v === '' ? undefined : v), id.optional()),
});

export const AchStatusInput = z.object({
  companyId: id,
  qbVendorId: plainText(40, 'qbVendorId is required').pipe(z.string().min(1, 'qbVendorId is required')),
});

const reason = plainText(500, 'Please give a reason').pipe(z.string().min(1, 'Please give a reason'));

/** Approving or rejecting a held bank detail change: always with a reason, on record. */
export const BankingChangeDecisionInput = z.object({ reason });

/** Turns the vendor's remittance advice e-mails on or off. */
export const RemittanceAdviceInput = z.object({ enabled: flag });

/** A company's control on bank detail changes (ADMIN). Turning it off needs a reason. */
export const BankingControlInput = z.object({
  enabled: flag,
  flagDays: z.coerce
    .number({ error: 'flagDays must be a number of days' })
    .int('flagDays must be a whole number of days')
    .min(1, 'flagDays must be at least 1')
    .max(365, 'flagDays must be at most 365')
    .default(30),
  reason: z.preprocess((v) => (v === undefined ? '' : v), plainText(500)),
});

export const BankingChangeIdInput = z.object({
  changeId: z.string().max(100, 'Invalid change id').pipe(z.uuid('Invalid change id')),
});

/** One micro-deposit as the vendor's statement shows it: $0.01 to $0.99 ('0.12', '$0.12', '.12'). */
const microDeposit = z
  .union([z.string().max(12), z.number()], { error: 'Enter each amount, e.g. 0.12' })
  .transform((v, ctx) => {
    const text = String(v).trim().replace(/^\$/, '');
    const m = /^0?\.(\d{2})$/.exec(text);
    const cents = m ? Number(m[1]) : Number.NaN;
    if (!(cents >= 1 && cents <= 99)) {
      ctx.addIssue({ code: 'custom', message: 'Each amount is between 0.01 and 0.99, e.g. 0.12' });
      return z.NEVER;
    }
    return cents;
  });

/** The vendor's entry of the two micro-deposits (any order), in dollars as the statement shows them. */
export const MicroDepositEntryInput = z.object({
  amounts: z.array(microDeposit, { error: 'Enter both amounts' }).length(2, 'Enter both amounts'),
});

// Inputs of the company commands, REST body
// and GraphQL args alike. The NACHA rules are the form's, plus what a bank's validator checks
// (reference/nacha.md): the routing number's check digit, printable ASCII, upper case.
import { z } from 'zod';
import { MAX_ROW_ID } from '../shared/ids.js';
import { plainText } from '../shared/text-rules.js';

export const INDUSTRIES = [
  'Technology',
  'Healthcare',
  'Finance',
  'Retail',
  'Manufacturing',
  'Construction',
  'Education',
  'Real Estate',
  'Transportation',
  'Food & Beverage',
  'Entertainment',
  'Consulting',
  'Non-profit',
  'Government',
  'Other',
] as const;

/** Empty or absent → null: the form sends empty optional strings as absent. */
const optional = <T extends z.ZodType<string | null | undefined>>(schema: T) =>
  z.preprocess((v) => (v === '' || v === undefined ? null : v), schema.nullable());

const email = optional(
  z
    .string()
    .max(254, 'Invalid email address')
    .trim()
    .toLowerCase()
    .pipe(z.email({ message: 'Invalid email address' })),
);

const website = optional(
  z
    .string()
    .max(2048, 'Invalid website URL')
    .trim()
    .refine((v) => {
      try {
        const u = new URL(v);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    }, 'Invalid website URL'),
);

/** A user or manager id as JSON (number) or a form value (digits); null or absent: unassigned. */
const assigneeId = z
  .union([z.number(), z.string().max(12).regex(/^\d+$/, 'Invalid id').transform(Number)])
  .pipe(z.number().int('Invalid id').positive('Invalid id').max(MAX_ROW_ID, 'Invalid id'))
  .nullish()
  .transform((v) => v ?? null);

/** `metadata` may carry qbPaymentAccountReference: copied onto the company. */
const metadata = z
  .string()
  .max(10_000, 'Metadata is too long')
  .optional()
  .transform((v, ctx) => {
    if (!v) return null;
    try {
      const parsed = JSON.parse(v) as unknown;
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'Metadata must be JSON' });
      return z.NEVER;
    }
  });

const accountReference = optional(plainText(50));

const companyFields = {
  name: plainText(255 * 4, 'Company name is required').pipe(
    z.string().min(1, 'Company name is required').max(255, 'Name is too long'),
  ),
  email,
  phone: optional(plainText(40)),
  website,
  address: optional(plainText(500)),
  description: optional(plainText(2000)),
  industry: optional(z.enum(INDUSTRIES, { error: 'Please choose an industry from the list' })),
  managerId: assigneeId,
  processorId: assigneeId,
  approverId: assigneeId,
  accountantId: assigneeId,
  qbPaymentAccountReference: accountReference,
  metadata,
};

/** `metadata.qbPaymentAccountReference`, when it names one. */
const referenceIn = (meta: Record<string, unknown> | null) => {
  const fromMeta = meta?.qbPaymentAccountReference;
  return typeof fromMeta === 'string' && fromMeta.trim() ? fromMeta.trim().slice(0, 50) : null;
};

/** The whole company form, as create takes it: what is absent is empty. */
export const CompanyInput = z.object(companyFields).transform(({ metadata: meta, ...c }) => ({
  ...c,
  qbPaymentAccountReference: c.qbPaymentAccountReference ?? referenceIn(meta),
}));
export type CompanyInput = z.infer<typeof CompanyInput>;

/**
 * The form as PUT takes it. The details are the form's (what is absent is cleared: the form sends an
 * emptied field as absent). The four assignments and the payment account keep their value when
 * absent and are cleared only by an explicit null: a partial update never silently stops payments.
 */
export const CompanyUpdateInput = z
  .object({
    ...companyFields,
    managerId: assigneeId.optional(),
    processorId: assigneeId.optional(),
    approverId: assigneeId.optional(),
    accountantId: assigneeId.optional(),
    qbPaymentAccountReference: accountReference.optional(),
  })
  .transform(({ metadata: meta, ...c }) => ({
    ...c,
    qbPaymentAccountReference:
      c.qbPaymentAccountReference ?? referenceIn(meta) ?? c.qbPaymentAccountReference,
  }));
export type CompanyUpdateInput = z.infer<typeof CompanyUpdateInput>;

/** One or more assignments changed inline (detail page): absent = unchanged, null = unassigned. */
export const AssignmentsInput = z
  .object({
    managerId: assigneeId.optional(),
    processorId: assigneeId.optional(),
    approverId: assigneeId.optional(),
    accountantId: assigneeId.optional(),
  })
  .strict();

export const PaymentAccountInput = z.object({ qbPaymentAccountReference: accountReference });

/** Whether the company sends Same-Day ACH (its bank must have agreed to it). */
export const SameDayAchInput = z.object({
  sameDayAch: z.boolean().describe('true: files made before 14:45 New York are effective the same day'),
});

export const CompanyListInput = z.object({
  search: z.preprocess((v) => (v === '' ? undefined : v), plainText(255).optional()),
  status: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.enum(['ACTIVE', 'INACTIVE', 'SUSPENDED']).optional(),
  ),
  qbConnectionStatus: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.enum(['connected', 'disconnected', 'error', 'not_connected']).optional(),
  ),
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(1000).default(10),
});

export const CompanySearchInput = z.object({ q: plainText(255, 'Search text is required') });

// NACHA: printable ASCII as banks read it (reference/nacha.md), upper case.
const NACHA_TEXT = /^[\x20-\x7E]*$/;
const nachaText = (max: number, label: string) =>
  z
    .string({ error: `${label} is required` })
    .max(max * 4, `${label} must be at most ${max} characters`)
    .transform((v) => v.trim().toUpperCase())
    .pipe(
      z
        .string()
        .max(max, `${label} must be at most ${max} characters`)
        .regex(NACHA_TEXT, `${label} may only contain letters, digits and common symbols`),
    );
const requiredNachaText = (max: number, label: string) =>
  nachaText(max, label).pipe(z.string().min(1, `${label} is required`));
const optionalNachaText = (max: number, label: string) => optional(nachaText(max, label));

/** The ABA check digit over nine digits (reference/nacha.md, moov-io validators.go). */
export function routingCheckDigitOk(digits: string): boolean {
  if (!/^\d{9}$/.test(digits)) return false;
  const w = [3, 7, 1, 3, 7, 1, 3, 7];
  const sum = w.reduce((s, weight, i) => s + weight * Number(digits[i]), 0);
  return (10 - (sum % 10)) % 10 === Number(digits[8]);
}

export const NachaConfigInput = z.object({
  bankRoutingNumber: z
    .string({ error: 'Routing number is required' })
    .max(40, 'Routing number must be exactly 9 digits')
    .transform((v) => v.replace(/[\s-]/g, ''))
    .pipe(
      z
        .string()
        .regex(/^\d{9}$/, 'Routing number must be exactly 9 digits')
        .refine(routingCheckDigitOk, 'Routing number is not valid (check digit)'),
    ),
  /** Absent or the masked value the API shows: keep the stored number. */
  bankAccountNumber: z
    .string()
    .max(40, 'Account number must be 17 characters or less')
    .transform((v) => v.trim())
    .pipe(
      z
        .string()
        .max(17, 'Account number must be 17 characters or less')
        .regex(/^[0-9A-Za-z*-]*$/, 'Account number may only contain letters, digits and dashes'),
    )
    .optional(),
  bankAccountType: z.enum(['checking', 'savings'], { error: 'Please select an account type' }),
  bankName: plainText(100, 'Bank name is required').pipe(z.string().min(1, 'Bank name is required')),
  originatorStatusCode: z.preprocess(
    (v) => (v === '' || v === undefined || v === null ? '1' : v),
    z.enum(['1', '2'], { error: 'Originator status code must be 1 or 2' }),
  ),
  companyTaxId: z
    .string({ error: 'Tax ID is required' })
    .max(20, 'Tax ID must be in format XX-XXXXXXX (9 digits total)')
    .transform((v) => v.replace(/[\s-]/g, ''))
    .pipe(z.string().regex(/^\d{9}$/, 'Tax ID must be in format XX-XXXXXXX (9 digits total)')),
  achCompanyId: optional(
    z
      .string()
      .max(20, 'ACH company ID must be exactly 10 digits')
      .transform((v) => v.trim())
      .pipe(z.string().regex(/^\d{10}$/, 'ACH company ID must be exactly 10 digits')),
  ),
  immediateDestinationName: requiredNachaText(23, 'Immediate destination name'),
  /** Absent: the company's name, upper case, cut to 23. */
  immediateOriginName: optionalNachaText(23, 'Immediate origin name'),
  /** Absent: BILL PAY. */
  companyEntryDescription: z.preprocess(
    (v) => (v === '' || v === undefined || v === null ? 'BILL PAY' : v),
    requiredNachaText(10, 'Company entry description'),
  ),
  companyDiscretionaryData: optionalNachaText(20, 'Discretionary data'),
  balancedFile: z.boolean().optional().default(false),
});
export type NachaConfigInput = z.infer<typeof NachaConfigInput>;

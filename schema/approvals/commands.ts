// Inputs of the approval calls, REST bodies and GraphQL args alike.
import { z } from 'zod';
import { MAX_ROW_ID } from '../shared/ids.js';
import { plainText } from '../shared/text-rules.js';

const id = z.coerce
  .number({ error: 'Invalid id' })
  .int('Invalid id')
  .positive('Invalid id')
  .max(MAX_ROW_ID, 'Invalid id');

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' || v === null ? undefined : v), schema.optional());

// 254: the longest address SMTP carries (RFC 5321).
const email = z
  .string({ error: 'Please enter a valid email address' })
  .max(254, 'Please enter a valid email address')
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'Please enter a valid email address' }));

/** A QuickBooks entity id: digits in practice; kept short and plain. */
export const qbId = z
  .string({ error: 'Bill ids must be QuickBooks ids' })
  .max(40, 'Bill ids must be QuickBooks ids')
  .trim()
  .regex(/^[0-9A-Za-z-]{1,40}$/, 'Bill ids must be QuickBooks ids');

/** A list of bill ids: an array, or the spec's comma-separated string. */
const billIdList = (what: string, max = 200) =>
  z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : v,
    z
      .array(qbId, { error: `${what} must be a list of bill ids` })
      .max(max, `At most ${max} bills`)
      .refine((ids) => new Set(ids).size === ids.length, `${what} lists a bill twice`),
  );

export const PriorityInput = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toUpperCase() : v),
  z.enum(['URGENT', 'HIGH', 'MEDIUM', 'LOW'], { error: 'Priority must be URGENT, HIGH, MEDIUM or LOW' }),
);

const recipients = z
  .array(email, { error: 'recipients must be a list of e-mail addresses' })
  .max(20, 'At most 20 recipients')
  .transform((list) => [...new Set(list)]);

export const CreateApprovalInput = z.object({
  companyId: id,
  billIds: billIdList('billIds').pipe(z.array(z.string()).min(1, 'Select at least one bill')),
  managerId: optional(id),
  priority: z.preprocess((v) => (v === '' || v === null || v === undefined ? 'MEDIUM' : v), PriorityInput),
  recipients: z.preprocess((v) => (v === null || v === undefined ? [] : v), recipients),
  /** Bills the caller accepts although they look like a bill already in an approval. */
  confirmDuplicates: z.preprocess(
    (v) => (v === null || v === undefined ? [] : v),
    billIdList('confirmDuplicates'),
  ),
});
export type CreateApprovalInput = z.infer<typeof CreateApprovalInput>;

/** What may change while PENDING: priority, manager (null clears it), recipients. */
export const UpdateApprovalInput = z
  .object({
    priority: optional(PriorityInput),
    managerId: z.preprocess((v) => (v === '' ? null : v), id.nullable().optional()),
    recipients: z.preprocess((v) => (v === null ? undefined : v), recipients.optional()),
  })
  .refine(
    (v) => v.priority !== undefined || v.managerId !== undefined || v.recipients !== undefined,
    'Nothing to update: give priority, managerId or recipients',
  );
export type UpdateApprovalInput = z.infer<typeof UpdateApprovalInput>;

/**
 * The effective entry date chosen, 'YYYY-MM-DD' (a banking day, today only in a same-day window, at
 * most 30 days ahead: services/nacha/effective-date.ts); absent, null or empty: the default.
 */
const effectiveDate = z
  .string()
  .max(32)
  .nullish()
  .transform((s) => (s ? s.trim() : undefined) || undefined)
  .describe(
    "The effective entry date, 'YYYY-MM-DD'; absent: the next banking day (today in a same-day window)",
  );

export const ApproveApprovalInput = z.object({
  approvedBills: billIdList('approvedBills').pipe(z.array(z.string()).min(1, 'Approve at least one bill')),
  effectiveDate,
});

/** Regenerate's body: optionally the effective entry date. */
export const RegenerateNachaInput = z.object({ effectiveDate });

const REJECTION_REASON_MAX = 1000;
export const RejectApprovalInput = z.object({
  rejectionReason: plainText(REJECTION_REASON_MAX, 'Please provide a reason for rejection').pipe(
    z.string().min(1, 'Please provide a reason for rejection'),
  ),
});

export const RecipientsInput = z.object({ recipients });

const approvalIdList = z
  .array(z.string().max(64), { error: 'ids must be a list of approval ids' })
  .min(1, 'Select at least one approval')
  .max(500, 'At most 500 approvals at once')
  .refine((ids) => new Set(ids).size === ids.length, 'ids lists an approval twice');

export const BulkApproveInput = z.object({ ids: approvalIdList });
export const BulkRejectInput = z.object({
  ids: approvalIdList,
  reason: RejectApprovalInput.shape.rejectionReason,
});

const APPROVAL_SORT_COLUMNS = [
  'createdAt',
  'updatedAt',
  'status',
  'priority',
  'companyName',
  'billCount',
  'approvedBillCount',
  'totalAmount',
  'approvedAmount',
  'managerName',
] as const;

const status = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toUpperCase() : v),
  z.enum(
    [
      'PENDING',
      'APPROVED',
      'REJECTED',
      'EXPIRED',
      'NACHA_GENERATED',
      'NACHA_PENDING',
      'BANK_UPLOADED',
      'PAYMENT_COMPLETED',
    ],
    { error: 'Unknown status' },
  ),
);

/**
 * What holds an approval's payment, as the list filters it: `any` every problem someone must act on
 * (all but one that only waits for the next banking day), `file` a NACHA file that could not be made
 * (waiting on a fix, or its job failed), `sync` a QuickBooks record that failed after the bank paid
 * (or its job failed), `waiting` a file that waits for the next banking day and nothing else.
 */
export const PaymentProblemFilter = z.enum(['any', 'file', 'sync', 'waiting'], {
  error: 'problem must be any, file, sync or waiting',
});
export type PaymentProblemFilter = z.infer<typeof PaymentProblemFilter>;
const problem = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toLowerCase() : v),
  PaymentProblemFilter,
);

export const ApprovalFilters = z.object({
  search: optional(plainText(255)),
  status: optional(status),
  priority: optional(PriorityInput),
  companyId: optional(id),
  problem: optional(problem),
});

export const ApprovalListInput = ApprovalFilters.extend({
  page: z.coerce.number({ error: 'page must be a number' }).int().min(1).max(1_000_000).default(1),
  limit: z.preprocess(
    (v) => (v === undefined || v === '' ? 10 : Number(v)),
    z.union([z.literal(5), z.literal(10), z.literal(25), z.literal(50), z.literal(100)], {
      error: 'limit must be 5, 10, 25, 50 or 100',
    }),
  ),
  sortBy: optional(z.enum(APPROVAL_SORT_COLUMNS, { error: 'Unknown sort column' })),
  sortOrder: optional(
    z.preprocess(
      (v) => (typeof v === 'string' ? v.toLowerCase() : v),
      z.enum(['asc', 'desc'], { error: 'sortOrder must be asc or desc' }),
    ),
  ),
});

export const ApprovalExportInput = ApprovalFilters.extend({
  format: z.preprocess(
    (v) => (v === undefined || v === '' ? 'csv' : v),
    z.literal('csv', { error: 'Only csv is offered' }),
  ),
});

export const ApprovalStatsInput = z.object({ companyId: optional(id) });

/** The manager picker's choices; for a company, its assigned manager is marked among them. */
export const ManagerOptionsInput = z.object({ companyId: optional(id) });

export const BillsForApprovalInput = z.object({
  companyId: id,
  // The list is served from a copy kept fresh by QuickBooks' CDC: true asks CDC now.
  refresh: z
    .preprocess(
      (v) => (v === 'true' || v === true ? true : v === 'false' || v === false ? false : v),
      z.boolean({ error: 'Must be true or false' }),
    )
    .optional()
    .describe('Ask QuickBooks what changed now, instead of a copy up to QBO_BILLS_FRESH_SECONDS old'),
});

export const ApprovalPolicyInput = z.object({
  creatorMayNotApprove: z.boolean({ error: 'creatorMayNotApprove must be true or false' }),
  secondApprovalThreshold: z.preprocess(
    (v) => (v === undefined || v === '' ? null : v),
    z
      .number({ error: 'secondApprovalThreshold must be an amount or null' })
      .nonnegative('secondApprovalThreshold must not be negative')
      .max(1_000_000_000, 'secondApprovalThreshold is too large')
      .nullable(),
  ),
  /** Absent: the company keeps what it has (clients that predate the setting leave it alone). */
  assignedStaffOnly: z.boolean({ error: 'assignedStaffOnly must be true or false' }).optional(),
});
export type ApprovalPolicyInput = z.infer<typeof ApprovalPolicyInput>;

/** The dashboard's chart: approvals created per day over the last `days` days (default 30). */
export const ApprovalsByDayInput = z.object({
  days: z.preprocess(
    (v) => (v === undefined || v === '' || v === null ? 30 : v),
    z.coerce.number({ error: 'days must be a number' }).int('days must be a whole number').min(1).max(90),
  ),
});

// What the bank sent back that waits on a person: the notifications of change still open and the
// returns of the last 30 days, each with its company, approval and vendor (read models
// payment_entries, companies, vendors). A notification is open while the vendor's bank details have
// not changed since it arrived; it is overdue once its six banking days have passed (New York).
// Staff see the companies they work on (decision 0001).
import {
  ATTENTION_DAYS,
  newYorkDay,
  type OpenCorrection,
  type PaymentEntriesNeedingAttention,
  type RecentReturn,
} from '../../../../schema/payments/attention-answers.js';
import type { AppServices } from '../../../app/context.js';
import { companyScope } from '../../../app/staff-scope.js';
import { type Actor, authorize } from '../../../auth/permissions.js';

/** Rows shown per list: a month of a busy originator's answers fits well below this. */
const SHOWN = 200;

export async function paymentEntriesNeedingAttention(
  app: AppServices,
  actor: Actor | null,
  now: Date = new Date(),
): Promise<PaymentEntriesNeedingAttention> {
  authorize(actor, 'payments.read');
  const today = newYorkDay(now);
  const since = new Date(now.getTime() - ATTENTION_DAYS * 86_400_000);
  const scope = await companyScope(app, actor);
  const empty = { today, lookbackDays: ATTENTION_DAYS, corrections: [], returns: [] };
  if (scope !== 'all' && scope.size === 0) return empty;

  const entries = () => {
    let q = app.db
      .selectFrom('payment_entries as e')
      .leftJoin('companies as c', 'c.id', 'e.company_id')
      .leftJoin('vendors as v', (join) =>
        join.onRef('v.company_id', '=', 'e.company_id').onRef('v.qb_vendor_id', '=', 'e.qb_vendor_id'),
      )
      .select([
        'e.trace_number',
        'e.company_id',
        'c.name as company_name',
        'e.approval_id',
        'e.qb_vendor_id',
        'v.id as vendor_id',
        'e.vendor_name',
        'e.amount_cents',
        'e.account_last4',
      ]);
    if (scope !== 'all') q = q.where('e.company_id', 'in', [...scope]);
    return q;
  };

  const [correctionRows, returnRows] = await Promise.all([
    entries()
      .select([
        'e.change_code',
        'e.change_description',
        'e.corrected_account_last4',
        'e.corrected_routing_last4',
        'e.correction_due_by',
        'e.correction_received_at',
      ])
      .where('e.change_code', 'is not', null)
      .where('e.correction_received_at', '>=', since)
      // Still open: the vendor's bank details have not changed since the notification arrived.
      .where((eb) =>
        eb.or([
          eb('v.banking_updated_at', 'is', null),
          eb('v.banking_updated_at', '<=', eb.ref('e.correction_received_at')),
        ]),
      )
      .orderBy('e.correction_due_by')
      .orderBy('e.trace_number')
      .limit(SHOWN)
      .execute(),
    entries()
      .select(['e.return_code', 'e.return_description', 'e.returned_at'])
      .where('e.status', '=', 'returned')
      .where('e.returned_at', '>=', since)
      .orderBy('e.returned_at', 'desc')
      .orderBy('e.trace_number')
      .limit(SHOWN)
      .execute(),
  ]);

  type Base = Awaited<ReturnType<ReturnType<typeof entries>['execute']>>[number];
  const base = (r: Base) => ({
    traceNumber: r.trace_number,
    companyId: r.company_id,
    companyName: r.company_name ?? null,
    approvalId: r.approval_id,
    qbVendorId: r.qb_vendor_id,
    vendorId: r.vendor_id ?? null,
    vendorName: r.vendor_name,
    amountCents: Number(r.amount_cents),
    accountLast4: r.account_last4,
  });
  const corrections: OpenCorrection[] = correctionRows.map((r) => ({
    ...base(r),
    code: r.change_code ?? '',
    description: r.change_description ?? '',
    receivedAt: (r.correction_received_at as Date).toISOString(),
    correctedAccountLast4: r.corrected_account_last4,
    correctedRoutingLast4: r.corrected_routing_last4,
    dueBy: r.correction_due_by ?? today,
    overdue: r.correction_due_by !== null && r.correction_due_by < today,
  }));
  const returns: RecentReturn[] = returnRows.map((r) => ({
    ...base(r),
    code: r.return_code ?? '',
    description: r.return_description ?? '',
    receivedAt: (r.returned_at as Date).toISOString(),
  }));
  return { ...empty, corrections, returns };
}

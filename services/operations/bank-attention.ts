// The operations page's line on the bank: notifications of change still open (the vendor's bank
// details not changed since) and those past Nacha's six banking days, the entries of recent bank files
// that matched no Billflow entry, the returns, and the files an upload failed to deliver or the bank
// rejected (their approvals wait on a person), over the last 30 days. Read from the payments and
// vendors read models, the same rule as the bank files page (schema/payments/attention-answers.ts);
// kept while those stand still, as the page refreshes every two seconds, and per New York day, as
// "overdue" moves with the date.
import { sql } from 'kysely';
import { ATTENTION_DAYS, type BankAttention, newYorkDay } from '../../schema/payments/attention-answers.js';
import type { AppServices } from '../app/context.js';
import { readCached } from '../app/read-cache.js';
import { type Actor, authorize } from '../auth/permissions.js';

const READ_MODELS = ['payment_entries', 'vendors'] as const;

export async function bankAttention(app: AppServices, now: Date = new Date()): Promise<BankAttention | null> {
  const today = newYorkDay(now);
  try {
    return await readCached(app, READ_MODELS, `operations:bank:${today}`, async () => {
      const since = new Date(now.getTime() - ATTENTION_DAYS * 86_400_000);
      const [entries, files, deliveries] = await Promise.all([
        app.db
          .selectFrom('payment_entries as e')
          .leftJoin('vendors as v', (join) =>
            join.onRef('v.company_id', '=', 'e.company_id').onRef('v.qb_vendor_id', '=', 'e.qb_vendor_id'),
          )
          .select([
            sql<number>`count(*) FILTER (WHERE e.change_code IS NOT NULL AND e.correction_received_at >= ${since}
              AND (v.banking_updated_at IS NULL OR v.banking_updated_at <= e.correction_received_at))::int`.as(
              'open',
            ),
            sql<number>`count(*) FILTER (WHERE e.change_code IS NOT NULL AND e.correction_received_at >= ${since}
              AND (v.banking_updated_at IS NULL OR v.banking_updated_at <= e.correction_received_at)
              AND e.correction_due_by < ${today})::int`.as('overdue'),
            sql<number>`count(*) FILTER (WHERE e.status = 'returned' AND e.returned_at >= ${since})::int`.as(
              'returns',
            ),
          ])
          .where((eb) =>
            eb.or([eb('e.correction_received_at', '>=', since), eb('e.returned_at', '>=', since)]),
          )
          .executeTakeFirstOrThrow(),
        app.db
          .selectFrom('ach_inbound_files')
          .select(sql<number>`coalesce(sum(jsonb_array_length(parked)), 0)::int`.as('parked'))
          .where('received_at', '>=', since)
          .executeTakeFirstOrThrow(),
        app.db
          .selectFrom('ach_deliveries')
          .select(sql<number>`count(*)::int`.as('failed'))
          .where('updated_at', '>=', since)
          .where((eb) => eb.or([eb('status', '=', 'failed'), eb('bank_answer', '=', 'rejected')]))
          .executeTakeFirstOrThrow(),
      ]);
      return {
        lookbackDays: ATTENTION_DAYS,
        openCorrections: entries.open,
        overdueCorrections: entries.overdue,
        parkedEntries: files.parked,
        returns: entries.returns,
        failedDeliveries: deliveries.failed,
      };
    });
  } catch (err) {
    // The page still answers with the queues when a read model is away.
    app.log.warn({ err: (err as Error).message }, 'bank attention not read');
    return null;
  }
}

/** The operations page's bank line (ADMIN). */
export async function operationsBankAttention(app: AppServices, actor: Actor | null) {
  authorize(actor, 'operations.read');
  return bankAttention(app);
}

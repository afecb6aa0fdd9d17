// Which approvals' payments are held, as SQL on the approvals read model. The reading is the one the
// answer's paymentProblem gives each row (services/approvals/payments/payment-rows.ts: a failed job
// first, then the file, then the QuickBooks record), so a list filtered by a problem, the dashboard's
// counts and what each row shows agree.
import { type RawBuilder, sql } from 'kysely';
import type { PaymentProblemFilter } from '../../schema/approvals/commands.js';
import type { PaymentJob } from '../../schema/approvals/payment-events.js';

/** The QuickBooks sync statuses that leave the books unlike what the bank paid. */
const SYNC_FAILED = ['FAILED', 'PARTIAL_SUCCESS', 'SKIPPED'] as const;
/** The jobs whose failure leaves the file unmade, and those whose failure leaves QuickBooks behind. */
const FILE_JOBS: readonly PaymentJob[] = ['request-nacha', 'generate-nacha', 'deferred-nacha'];
const SYNC_JOBS: readonly PaymentJob[] = ['start-qb-sync', 'pay-bills'];

const list = (values: readonly string[]) => values.map((v) => `'${v}'`).join(', ');

/**
 * Rows with any payment problem, waiting included: the partial index's predicate (the projection's
 * setup) and the first condition of every filter, so each filter reads that index. A file made while
 * vendors were held out of it (their banking changed after approval) is one until the bank has it;
 * a payment the bank returned is a candidate (returnedUnpaid says whether it still needs someone).
 */
export const PAYMENT_HELD = `(payment_job_problem IS NOT NULL OR nacha_status = 'FAILED' OR qb_sync_status IN (${list(SYNC_FAILED)}) OR (status = 'NACHA_GENERATED' AND nacha_problems <> '[]'::jsonb) OR returned_bill_ids <> '{}')`;

const columns = (alias: string) => {
  const col = (name: string) => sql.ref(`${alias}.${name}`);
  return {
    col,
    job: col('payment_job_problem'),
    nacha: col('nacha_status'),
    sync: col('qb_sync_status'),
    /** A file made with vendors held out, not yet at the bank. */
    heldOut: sql`(${col('status')} = 'NACHA_GENERATED' AND ${col('nacha_problems')} <> '[]'::jsonb)`,
  };
};

/** The held conditions other than a return, on the approvals table as `alias` names it. */
function heldBeforeReturns(alias: string): RawBuilder<boolean> {
  const { job, nacha, sync, heldOut } = columns(alias);
  return sql<boolean>`(${job} IS NOT NULL OR ${nacha} = 'FAILED' OR ${sync} IN (${sql.raw(list(SYNC_FAILED))}) OR ${heldOut})`;
}

/** PAYMENT_HELD on the approvals table as `alias` names it. */
export function paymentHeldWhere(alias: string): RawBuilder<boolean> {
  const returned = sql.ref(`${alias}.returned_bill_ids`);
  return sql<boolean>`(${heldBeforeReturns(alias)} OR ${returned} <> '{}')`;
}

/**
 * A payment the bank returned needs someone until each returned bill is paid again: approved in a
 * later approval of the company that reached PAYMENT_COMPLETED without that bill's entry coming back.
 */
export function returnedUnpaidWhere(alias: string): RawBuilder<boolean> {
  const col = (name: string) => sql.ref(`${alias}.${name}`);
  return sql<boolean>`(${col('returned_bill_ids')} <> '{}' AND EXISTS (
    SELECT 1 FROM unnest(${col('returned_bill_ids')}) AS rb(bill_id)
    WHERE NOT EXISTS (
      SELECT 1 FROM approvals later
      WHERE later.company_id = ${col('company_id')} AND NOT later.deleted
        AND later.status = 'PAYMENT_COMPLETED' AND later.created_at > ${col('created_at')}
        AND rb.bill_id = ANY(later.approved_bill_ids) AND NOT (rb.bill_id = ANY(later.returned_bill_ids))
    )
  ))`;
}

/** The condition of one problem filter on the approvals table as `alias` names it. */
export function paymentProblemWhere(filter: PaymentProblemFilter, alias: string): RawBuilder<boolean> {
  const { col, job, nacha, sync, heldOut } = columns(alias);
  const held = paymentHeldWhere(alias);
  const fileLimit = sql`${col('nacha_problems')} @> '[{"kind":"file-limit"}]'::jsonb`;
  // The answer's kind 'waiting': no failed job, and the file waits only on the day's file limit.
  const waiting = sql`(${job} IS NULL AND ${nacha} IS NOT DISTINCT FROM 'FAILED' AND ${fileLimit})`;
  const jobOf = (jobs: readonly PaymentJob[]) =>
    sql`coalesce(${job}->>'job' IN (${sql.raw(list(jobs))}), false)`;
  switch (filter) {
    case 'any':
      return sql<boolean>`(${held} AND ((${heldBeforeReturns(alias)} AND NOT ${waiting}) OR ${returnedUnpaidWhere(alias)}))`;
    case 'waiting':
      return sql<boolean>`(${held} AND ${waiting})`;
    case 'file':
      return sql<boolean>`(${held} AND ((${nacha} = 'FAILED' AND NOT ${fileLimit}) OR ${heldOut} OR ${jobOf(FILE_JOBS)}))`;
    case 'sync':
      return sql<boolean>`(${held} AND (${sync} IN (${sql.raw(list(SYNC_FAILED))}) OR ${jobOf(SYNC_JOBS)}))`;
  }
}

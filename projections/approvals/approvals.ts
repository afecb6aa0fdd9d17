// The approvals read model: one row per approval with what the list,
// its stats and the detail need. Names (company, manager, creator, approver) are not copied: the
// reads join the companies, managers and users read models, so a rename shows everywhere and no
// person's name or e-mail is kept twice. The bills snapshot is kept without the vendors' e-mail and
// phone: those stay sealed in ApprovalCreated and the detail opens them from the stream.
import { type Kysely, sql, type Transaction } from 'kysely';
import {
  type ApprovalEvent,
  type ApprovalStatus,
  approvalEvents,
  type BillSnapshot,
  type Priority,
} from '../../schema/approvals/events.js';
import { paymentsEvents } from '../../schema/payments/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { eventDecoder } from '../../services/shared/decider.js';
import type { Projection, ProjectionContext } from '../projection.js';
import {
  ENTRY_ANSWER_TYPES,
  type EntryAnswerEvent,
  emptyPaymentColumns,
  evolveEntryAnswerRow,
  evolvePaymentRow,
  PAYMENT_COLUMNS,
  PAYMENT_COLUMNS_SQL,
  PAYMENT_EVENT_TYPES,
  PAYMENT_LINK_COLUMNS_SQL,
  PAYMENT_STATUS_EVENTS,
} from './approval-payments.js';
import { PAYMENT_HELD } from './payment-problems.js';
import type { ApprovalReadTables, ApprovalsTable } from './tables.js';

export type { ApprovalCountsTable, ApprovalsTable, ApprovalsTables } from './tables.js';

export const PRIORITY_RANK: Record<Priority, number> = { URGENT: 0, HIGH: 1, MEDIUM: 2, LOW: 3 };

// The approval's own events, and the payments module's answers about its entries (decision 0041).
const decodeApprovalEvent = eventDecoder({
  ...approvalEvents,
  PaymentEntryReturned: paymentsEvents.PaymentEntryReturned,
  PaymentEntryQbVoided: paymentsEvents.PaymentEntryQbVoided,
});

const HANDLES = [
  'ApprovalCreated',
  'ApprovalUpdated',
  'ApprovalRecipientsUpdated',
  'ApprovalFirstApproved',
  'ApprovalApproved',
  'ApprovalRejected',
  'ApprovalExpired',
  'ApprovalDeleted',
  'ApprovalBankingReapproved',
  ...PAYMENT_EVENT_TYPES,
  ...ENTRY_ANSWER_TYPES,
] as const;

/** What the list's search matches: the id, bill ids, document numbers and vendor names. */
export function approvalSearchText(approvalId: string, bills: readonly BillSnapshot[]) {
  return [
    approvalId,
    ...bills.flatMap((b) => [
      b.Id,
      b.DocNumber ?? '',
      b.VendorRef.name ?? '',
      b.VendorInfo.CompanyName ?? '',
    ]),
  ]
    .filter(Boolean)
    .join(' ')
    .toLowerCase();
}

const total = (bills: readonly BillSnapshot[]) =>
  (Math.round(bills.reduce((s, b) => s + b.TotalAmt, 0) * 100) / 100).toFixed(2);

export const approvalsProjection: Projection<ApprovalReadTables> = {
  name: 'approvals',
  // 2: the payment columns; 3: a payment job's failure (payment_job_problem); 4: the bills' vendors
  // (vendor_qb_ids), vendors a file held out kept in nacha_problems, and held rows indexed with them;
  // 5: the step's link (sent, expires) and the reasons of steps confirmed in the app; 6: what the bank
  // returned (bank_payment_state, returned_bill_ids); 7: the returns and voids read from the payments
  // module's entries (returned_traces).
  version: 7,
  tables: ['approvals', 'approval_counts'],
  handles: HANDLES,
  async setup(db, schema) {
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'approvals')} (
      id text PRIMARY KEY,
      company_id integer NOT NULL,
      status text NOT NULL,
      priority text NOT NULL,
      priority_rank smallint NOT NULL,
      manager_id integer,
      bill_ids text[] NOT NULL,
      vendor_qb_ids text[] NOT NULL DEFAULT '{}',
      approved_bill_ids text[] NOT NULL DEFAULT '{}',
      bill_count integer NOT NULL,
      approved_bill_count integer NOT NULL DEFAULT 0,
      total_amount numeric(16,2) NOT NULL,
      approved_amount numeric(16,2) NOT NULL DEFAULT 0,
      bills jsonb NOT NULL,
      confirmed_duplicates jsonb NOT NULL DEFAULT '[]',
      created_by integer,
      approved_by integer,
      first_approved_by integer,
      first_approved_at timestamptz,
      awaiting_second_approval boolean NOT NULL DEFAULT false,
      rejected_by integer,
      rejection_reason text,
      approval_date timestamptz,
      rejection_date timestamptz,
      expired_at timestamptz,
      expires_at timestamptz NOT NULL,
      deleted boolean NOT NULL DEFAULT false,
      deleted_at timestamptz,
      deleted_by integer,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      search_text text NOT NULL,${sql.raw(PAYMENT_COLUMNS_SQL)}
    )`.execute(db);
    // A table of version 3 (a start before this version's rebuild swapped in the new one) serves
    // until the swap: it gets the column, empty (the reads then take the vendors from the stream).
    await sql`ALTER TABLE ${sql.id(schema, 'approvals')} ADD COLUMN IF NOT EXISTS vendor_qb_ids text[] NOT NULL DEFAULT '{}'`.execute(
      db,
    );
    for (const column of PAYMENT_LINK_COLUMNS_SQL)
      await sql`ALTER TABLE ${sql.id(schema, 'approvals')} ADD COLUMN IF NOT EXISTS ${sql.raw(column)}`.execute(
        db,
      );
    // The list: newest first within the filters (status, company, priority); deleted rows never show.
    const index = async (name: string, columns: string) =>
      sql`CREATE INDEX IF NOT EXISTS ${sql.id(`approvals_${name}_idx`)} ON ${sql.id(schema, 'approvals')} ${sql.raw(columns)} WHERE NOT deleted`.execute(
        db,
      );
    await index('created', '(created_at DESC, id DESC)');
    await index('status_created', '(status, created_at DESC, id DESC)');
    await index('company_created', '(company_id, created_at DESC, id DESC)');
    await index('priority_created', '(priority_rank, created_at DESC, id DESC)');
    await index('creator', '(created_by)');
    // The list filtered by a payment problem and the dashboard's counts of them: the few held rows.
    // The returned payments the dashboard counts until their bills are paid again (payment-problems.ts).
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('approvals_returned_idx')} ON ${sql.id(schema, 'approvals')} (company_id) WHERE NOT deleted AND returned_bill_ids <> '{}'`.execute(
      db,
    );
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('approvals_payment_held_idx')} ON ${sql.id(schema, 'approvals')} (created_at DESC, id DESC) WHERE NOT deleted AND ${sql.raw(PAYMENT_HELD)}`.execute(
      db,
    );
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'approval_counts')} (
      company_id integer NOT NULL,
      status text NOT NULL,
      priority text NOT NULL,
      n integer NOT NULL,
      bills integer NOT NULL,
      approved_bills integer NOT NULL,
      amount numeric(18,2) NOT NULL,
      approved_amount numeric(18,2) NOT NULL,
      PRIMARY KEY (company_id, status, priority)
    )`.execute(db);
    await ensureTrigramExtension(db);
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('approvals_search_idx')} ON ${sql.id(schema, 'approvals')} USING gin (search_text gin_trgm_ops)`.execute(
      db,
    );
  },
  async apply(trx, stored, ctx) {
    await applyApprovals(trx, [stored], ctx);
  },
  applyBatch: (trx, events, ctx) => applyApprovals(trx, events, ctx),
};

type Row = ApprovalsTable;

/** What a row adds to the running totals (nothing once deleted). */
type Contribution = {
  key: string;
  company_id: number;
  status: ApprovalStatus;
  priority: Priority;
  n: number;
  bills: number;
  approved_bills: number;
  amount: number;
  approved_amount: number;
};
const contributionOf = (r: Row | undefined): Contribution | null =>
  !r || r.deleted
    ? null
    : {
        key: `${r.company_id}|${r.status}|${r.priority}`,
        company_id: r.company_id,
        status: r.status,
        priority: r.priority,
        n: 1,
        bills: r.bill_count,
        approved_bills: r.approved_bill_count,
        amount: Number(r.total_amount),
        approved_amount: Number(r.approved_amount),
      };

const cents = (n: number) => (Math.round(n * 100) / 100).toFixed(2);

/** The row after one event; undefined when the event changes nothing (an approval not created yet). */
export function evolveApprovalRow(
  row: Row | undefined,
  event: ApprovalEvent | EntryAnswerEvent,
): Row | undefined {
  const at = new Date(event.data.at);
  if (event.type === 'ApprovalCreated') {
    if (row) return undefined;
    const e = event.data;
    return {
      id: e.approvalId,
      company_id: e.companyId,
      status: 'PENDING',
      priority: e.priority,
      priority_rank: PRIORITY_RANK[e.priority],
      manager_id: e.managerId,
      bill_ids: e.bills.map((b) => b.Id),
      vendor_qb_ids: [...new Set(e.bills.map((b) => b.VendorRef.value))],
      approved_bill_ids: [],
      bill_count: e.bills.length,
      approved_bill_count: 0,
      total_amount: total(e.bills),
      approved_amount: '0.00',
      bills: e.bills,
      confirmed_duplicates: e.confirmedDuplicates,
      created_by: e.createdBy,
      approved_by: null,
      first_approved_by: null,
      first_approved_at: null,
      awaiting_second_approval: false,
      rejected_by: null,
      rejection_reason: null,
      approval_date: null,
      rejection_date: null,
      expired_at: null,
      expires_at: new Date(e.expiresAt),
      deleted: false,
      deleted_at: null,
      deleted_by: null,
      created_at: at,
      updated_at: at,
      search_text: approvalSearchText(e.approvalId, e.bills),
      ...emptyPaymentColumns(),
    };
  }
  if (!row) return undefined;
  switch (event.type) {
    case 'ApprovalUpdated': {
      const e = event.data;
      return {
        ...row,
        ...(e.priority !== undefined
          ? { priority: e.priority, priority_rank: PRIORITY_RANK[e.priority] }
          : {}),
        ...(e.managerId !== undefined ? { manager_id: e.managerId } : {}),
        updated_at: at,
      };
    }
    case 'ApprovalRecipientsUpdated':
      // The recipients are sealed (personal): the read model only learns that something changed.
      return { ...row, updated_at: at };
    case 'ApprovalFirstApproved':
      return {
        ...row,
        awaiting_second_approval: true,
        first_approved_by: event.data.byUserId,
        first_approved_at: at,
        updated_at: at,
      };
    case 'ApprovalApproved': {
      const e = event.data;
      const ids = new Set(e.approvedBillIds);
      return {
        ...row,
        status: 'APPROVED',
        approved_bill_ids: e.approvedBillIds,
        approved_bill_count: e.approvedBillIds.length,
        // The approved amount from the snapshot the row already holds.
        approved_amount: cents(
          row.bills.filter((b) => ids.has(b.Id)).reduce((sum, b) => sum + b.TotalAmt, 0),
        ),
        approved_by: e.byUserId,
        first_approved_by: e.firstApprovedBy,
        awaiting_second_approval: false,
        approval_date: at,
        updated_at: at,
      };
    }
    case 'ApprovalRejected':
      return {
        ...row,
        status: 'REJECTED',
        rejected_by: event.data.byUserId,
        rejection_reason: event.data.reason,
        rejection_date: at,
        awaiting_second_approval: false,
        updated_at: at,
      };
    case 'ApprovalExpired':
      return { ...row, status: 'EXPIRED', expired_at: at, awaiting_second_approval: false, updated_at: at };
    case 'ApprovalDeleted':
      return { ...row, deleted: true, deleted_at: at, deleted_by: event.data.byUserId, updated_at: at };
    // What was approved again lives on the stream (the detail reads it); the row only moves.
    case 'ApprovalBankingReapproved':
      return { ...row, updated_at: at };
    case 'NachaGenerationRequested':
    case 'NachaFileGenerated':
    case 'NachaGenerationFailed':
    case 'PennyTestGenerated':
    case 'ApprovalLinkIssued':
    case 'BankUploadConfirmed':
    case 'PaymentCompleted':
    case 'QbPaymentSyncStarted':
    case 'QbBillPaid':
    case 'QbBillPaymentFailed':
    case 'QbPaymentSyncFinished':
    case 'PaymentJobFailed':
    case 'PaymentJobRecovered':
    case 'PaymentReturnRecorded':
    case 'QbBillPaymentVoided':
      return evolvePaymentRow(row, event);
    case 'PaymentEntryReturned':
    case 'PaymentEntryQbVoided':
      return evolveEntryAnswerRow(row, event);
    default:
      return undefined;
  }
}

/**
 * A batch: read the rows it touches once (or take them from the projection's memory), fold the events
 * over them in memory, write the changed rows with one upsert and the totals' change with another
 * (a rebuild of 100,000 approvals is a few hundred statements, not half a million).
 */
async function applyApprovals(
  trx: Transaction<ApprovalReadTables>,
  events: StoredEvent[],
  ctx: ProjectionContext,
) {
  const decoded = events
    .filter((e) => HANDLES.includes(e.type as (typeof HANDLES)[number]))
    .map((e) => decodeApprovalEvent(e));
  if (decoded.length === 0) return;
  const memory = ctx.memory;
  const rows = new Map<string, Row | undefined>();
  const unknown: string[] = [];
  for (const id of new Set(decoded.map((e) => e.data.approvalId))) {
    const known = memory?.rows.get(id) as Row | undefined;
    if (known) rows.set(id, known);
    else if (!memory?.complete) unknown.push(id);
  }
  const db = trx.withSchema(ctx.schema);
  // One array parameter per read, not a placeholder per id (up to 5,000 of them).
  for (let i = 0; i < unknown.length; i += 5000)
    for (const r of await db
      .selectFrom('approvals')
      .selectAll()
      .where('id', '=', sql<string>`ANY(${unknown.slice(i, i + 5000)}::text[])`)
      .execute())
      rows.set(r.id, r);
  const before = new Map([...rows].map(([id, r]) => [id, contributionOf(r)]));
  const dirty = new Set<string>();
  for (const event of decoded) {
    const id = event.data.approvalId;
    const next = evolveApprovalRow(rows.get(id), event);
    if (next) {
      rows.set(id, next);
      dirty.add(id);
    }
    ctx.notify({
      topic: 'approval',
      id,
      data: {
        type: event.type,
        companyId: event.data.companyId,
        ...(next && STATUS_EVENTS.has(event.type) ? { status: next.status } : {}),
      },
    });
  }
  if (dirty.size === 0) return;
  const changed = [...dirty].map((id) => rows.get(id)!);
  await sql`INSERT INTO ${sql.id(ctx.schema, 'approvals')}
    SELECT * FROM jsonb_populate_recordset(null::${sql.id(ctx.schema, 'approvals')}, ${JSON.stringify(changed)}::jsonb)
    ON CONFLICT (id) DO UPDATE SET ${sql.join(
      ROW_COLUMNS.map((c) => sql`${sql.id(c)} = excluded.${sql.id(c)}`),
    )}`.execute(trx);
  // The totals move by what each approval counted before the batch and counts after it.
  const deltas = new Map<string, Contribution>();
  for (const id of dirty)
    for (const [c, sign] of [
      [before.get(id) ?? null, -1],
      [contributionOf(rows.get(id)), 1],
    ] as const) {
      if (!c) continue;
      const d = deltas.get(c.key) ?? {
        ...c,
        n: 0,
        bills: 0,
        approved_bills: 0,
        amount: 0,
        approved_amount: 0,
      };
      d.n += sign * c.n;
      d.bills += sign * c.bills;
      d.approved_bills += sign * c.approved_bills;
      d.amount += sign * c.amount;
      d.approved_amount += sign * c.approved_amount;
      deltas.set(c.key, d);
    }
  const moved = [...deltas.values()].filter(
    (d) =>
      d.n !== 0 ||
      d.bills !== 0 ||
      d.approved_bills !== 0 ||
      Math.abs(d.amount) >= 0.005 ||
      Math.abs(d.approved_amount) >= 0.005,
  );
  if (moved.length > 0)
    await sql`INSERT INTO ${sql.id(ctx.schema, 'approval_counts')} AS t
      SELECT company_id, status, priority, n, bills, approved_bills, amount, approved_amount
      FROM jsonb_to_recordset(${JSON.stringify(moved.map(({ key: _k, ...d }) => ({ ...d, amount: cents(d.amount), approved_amount: cents(d.approved_amount) })))}::jsonb)
        AS x(company_id integer, status text, priority text, n integer, bills integer, approved_bills integer, amount numeric, approved_amount numeric)
      ON CONFLICT (company_id, status, priority) DO UPDATE SET
        n = t.n + excluded.n,
        bills = t.bills + excluded.bills,
        approved_bills = t.approved_bills + excluded.approved_bills,
        amount = t.amount + excluded.amount,
        approved_amount = t.approved_amount + excluded.approved_amount`.execute(trx);
  if (memory) for (const r of changed) memory.rows.set(r.id, r);
}

/** The events that set a status (their notices carry it). */
const STATUS_EVENTS = new Set<string>([
  'ApprovalCreated',
  'ApprovalApproved',
  'ApprovalRejected',
  'ApprovalExpired',
  ...PAYMENT_STATUS_EVENTS,
]);

const ROW_COLUMNS = [
  'company_id',
  'status',
  'priority',
  'priority_rank',
  'manager_id',
  'bill_ids',
  'vendor_qb_ids',
  'approved_bill_ids',
  'bill_count',
  'approved_bill_count',
  'total_amount',
  'approved_amount',
  'bills',
  'confirmed_duplicates',
  'created_by',
  'approved_by',
  'first_approved_by',
  'first_approved_at',
  'awaiting_second_approval',
  'rejected_by',
  'rejection_reason',
  'approval_date',
  'rejection_date',
  'expired_at',
  'expires_at',
  'deleted',
  'deleted_at',
  'deleted_by',
  'created_at',
  'updated_at',
  'search_text',
  ...PAYMENT_COLUMNS,
] as const satisfies ReadonlyArray<Exclude<keyof Row, 'id'>>;

// The search index needs pg_trgm (a trusted extension since PG 13, so no superuser). Two setups racing
// on a fresh database can both try to create it; the loser's unique violation means it is there.
async function ensureTrigramExtension<T>(db: Kysely<T>): Promise<void> {
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err;
  }
}

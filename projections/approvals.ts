// The approvals read model (spec 2 §3 Approval; issue 12): one row per approval with what the list,
// its stats and the detail need. Names (company, manager, creator, approver) are not copied: the
// reads join the companies, managers and users read models, so a rename shows everywhere and no
// person's name or e-mail is kept twice. The bills snapshot is kept without the vendors' e-mail and
// phone: those stay sealed in ApprovalCreated and the detail opens them from the stream.
import { type Kysely, sql, type Transaction } from 'kysely';
import type { ApprovalEvent, ApprovalStatus, BillSnapshot, Priority } from '../schema/events/approval.js';
import { decodeEvent } from '../schema/events/index.js';
import type { StoredEvent } from '../services/eventstore/port.js';
import type { Projection, ProjectionContext } from './projection.js';

export interface ApprovalsTable {
  id: string;
  company_id: number;
  status: ApprovalStatus;
  priority: Priority;
  /** URGENT 0 … LOW 3: sorts by urgency, not by name. */
  priority_rank: number;
  manager_id: number | null;
  bill_ids: string[];
  approved_bill_ids: string[];
  bill_count: number;
  approved_bill_count: number;
  /** numeric: pg answers strings; the reads turn them into numbers. */
  total_amount: string;
  approved_amount: string;
  bills: BillSnapshot[];
  confirmed_duplicates: Array<{ billId: string; matchesBillId: string; matchesApprovalId: string }>;
  created_by: number | null;
  approved_by: number | null;
  first_approved_by: number | null;
  first_approved_at: Date | null;
  awaiting_second_approval: boolean;
  rejected_by: number | null;
  rejection_reason: string | null;
  approval_date: Date | null;
  rejection_date: Date | null;
  expired_at: Date | null;
  expires_at: Date;
  deleted: boolean;
  deleted_at: Date | null;
  deleted_by: number | null;
  created_at: Date;
  updated_at: Date;
  search_text: string;
}

/**
 * Running totals per company, status and priority (approvals not deleted): the list's total without a
 * search, the stat cards and the dashboard figure read these few rows instead of counting 100,000.
 */
export interface ApprovalCountsTable {
  company_id: number;
  status: ApprovalStatus;
  priority: Priority;
  n: number;
  bills: number;
  approved_bills: number;
  amount: string;
  approved_amount: string;
}

export interface ApprovalsTables {
  approvals: ApprovalsTable;
  approval_counts: ApprovalCountsTable;
}

export const PRIORITY_RANK: Record<Priority, number> = { URGENT: 0, HIGH: 1, MEDIUM: 2, LOW: 3 };

const HANDLES = [
  'ApprovalCreated',
  'ApprovalUpdated',
  'ApprovalRecipientsUpdated',
  'ApprovalFirstApproved',
  'ApprovalApproved',
  'ApprovalRejected',
  'ApprovalExpired',
  'ApprovalDeleted',
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

export const approvalsProjection: Projection<ApprovalsTables> = {
  name: 'approvals',
  version: 1,
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
      search_text text NOT NULL
    )`.execute(db);
    // The list: newest first within the filters (status, company, priority); deleted rows never show.
    const index = async (name: string, columns: string) =>
      sql`CREATE INDEX IF NOT EXISTS ${sql.id(`approvals_${name}_${schema}`)} ON ${sql.id(schema, 'approvals')} ${sql.raw(columns)} WHERE NOT deleted`.execute(
        db,
      );
    await index('created', '(created_at DESC, id DESC)');
    await index('status_created', '(status, created_at DESC, id DESC)');
    await index('company_created', '(company_id, created_at DESC, id DESC)');
    await index('priority_created', '(priority_rank, created_at DESC, id DESC)');
    await index('creator', '(created_by)');
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
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id(`approvals_search_${schema}`)} ON ${sql.id(schema, 'approvals')} USING gin (search_text gin_trgm_ops)`.execute(
      db,
    );
  },
  async apply(trx, stored, ctx) {
    await applyApproval(trx, stored, ctx);
  },
};

async function applyApproval(trx: Transaction<ApprovalsTables>, stored: StoredEvent, ctx: ProjectionContext) {
  const event = decodeEvent(stored) as ApprovalEvent;
  const db = trx.withSchema(ctx.schema);
  const d = event.data;
  const at = new Date(d.at);
  const id = d.approvalId;
  let status: ApprovalStatus | null = null;
  const contribution = () =>
    db
      .selectFrom('approvals')
      .select([
        'company_id',
        'status',
        'priority',
        'bill_count',
        'approved_bill_count',
        'total_amount',
        'approved_amount',
        'deleted',
      ])
      .where('id', '=', id)
      .executeTakeFirst();
  const before = await contribution();
  switch (event.type) {
    case 'ApprovalCreated': {
      const e = event.data;
      status = 'PENDING';
      await db
        .insertInto('approvals')
        .values({
          id,
          company_id: e.companyId,
          status: 'PENDING',
          priority: e.priority,
          priority_rank: PRIORITY_RANK[e.priority],
          manager_id: e.managerId,
          bill_ids: e.bills.map((b) => b.Id),
          approved_bill_ids: [],
          bill_count: e.bills.length,
          approved_bill_count: 0,
          total_amount: total(e.bills),
          approved_amount: '0',
          bills: JSON.stringify(e.bills) as never,
          confirmed_duplicates: JSON.stringify(e.confirmedDuplicates) as never,
          created_by: e.createdBy,
          expires_at: new Date(e.expiresAt),
          awaiting_second_approval: false,
          deleted: false,
          created_at: at,
          updated_at: at,
          search_text: approvalSearchText(id, e.bills),
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      break;
    }
    case 'ApprovalUpdated': {
      const e = event.data;
      await db
        .updateTable('approvals')
        .set({
          ...(e.priority !== undefined
            ? { priority: e.priority, priority_rank: PRIORITY_RANK[e.priority] }
            : {}),
          ...(e.managerId !== undefined ? { manager_id: e.managerId } : {}),
          updated_at: at,
        })
        .where('id', '=', id)
        .execute();
      break;
    }
    case 'ApprovalRecipientsUpdated':
      // The recipients are sealed (personal): the read model only learns that something changed.
      await db.updateTable('approvals').set({ updated_at: at }).where('id', '=', id).execute();
      break;
    case 'ApprovalFirstApproved':
      await db
        .updateTable('approvals')
        .set({
          awaiting_second_approval: true,
          first_approved_by: event.data.byUserId,
          first_approved_at: at,
          updated_at: at,
        })
        .where('id', '=', id)
        .execute();
      break;
    case 'ApprovalApproved': {
      const e = event.data;
      status = 'APPROVED';
      await db
        .updateTable('approvals')
        .set({
          status: 'APPROVED',
          approved_bill_ids: e.approvedBillIds,
          approved_bill_count: e.approvedBillIds.length,
          // The approved amount from the snapshot the row already holds.
          approved_amount: sql<string>`(SELECT coalesce(sum((b->>'TotalAmt')::numeric), 0) FROM jsonb_array_elements(bills) b WHERE b->>'Id' = ANY(${e.approvedBillIds}::text[]))`,
          approved_by: e.byUserId,
          first_approved_by: e.firstApprovedBy,
          awaiting_second_approval: false,
          approval_date: at,
          updated_at: at,
        })
        .where('id', '=', id)
        .execute();
      break;
    }
    case 'ApprovalRejected':
      status = 'REJECTED';
      await db
        .updateTable('approvals')
        .set({
          status: 'REJECTED',
          rejected_by: event.data.byUserId,
          rejection_reason: event.data.reason,
          rejection_date: at,
          awaiting_second_approval: false,
          updated_at: at,
        })
        .where('id', '=', id)
        .execute();
      break;
    case 'ApprovalExpired':
      status = 'EXPIRED';
      await db
        .updateTable('approvals')
        .set({ status: 'EXPIRED', expired_at: at, awaiting_second_approval: false, updated_at: at })
        .where('id', '=', id)
        .execute();
      break;
    case 'ApprovalDeleted':
      await db
        .updateTable('approvals')
        .set({ deleted: true, deleted_at: at, deleted_by: event.data.byUserId, updated_at: at })
        .where('id', '=', id)
        .execute();
      break;
  }
  // The totals move by what this approval counted before and counts now (one-by-one `apply`: it may
  // read its own writes).
  const after = await contribution();
  for (const [row, sign] of [
    [before, -1],
    [after, 1],
  ] as const) {
    if (!row || row.deleted) continue;
    await db
      .insertInto('approval_counts')
      .values({
        company_id: row.company_id,
        status: row.status,
        priority: row.priority,
        n: sign,
        bills: sign * row.bill_count,
        approved_bills: sign * row.approved_bill_count,
        amount: String(sign * Number(row.total_amount)),
        approved_amount: String(sign * Number(row.approved_amount)),
      })
      .onConflict((oc) =>
        oc.columns(['company_id', 'status', 'priority']).doUpdateSet({
          n: sql`approval_counts.n + excluded.n`,
          bills: sql`approval_counts.bills + excluded.bills`,
          approved_bills: sql`approval_counts.approved_bills + excluded.approved_bills`,
          amount: sql`approval_counts.amount + excluded.amount`,
          approved_amount: sql`approval_counts.approved_amount + excluded.approved_amount`,
        }),
      )
      .execute();
  }
  ctx.notify({
    topic: 'approval',
    id,
    data: { type: event.type, companyId: d.companyId, ...(status ? { status } : {}) },
  });
}

// The search index needs pg_trgm (a trusted extension since PG 13, so no superuser). Two setups racing
// on a fresh database can both try to create it; the loser's unique violation means it is there.
async function ensureTrigramExtension<T>(db: Kysely<T>): Promise<void> {
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err;
  }
}

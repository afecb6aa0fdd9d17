// The bank detail changes of every vendor, masked (tails only): one row per change, held, frozen,
// approved, rejected, or live at once. The vendor's page, the approvals list, /bills, the approval
// detail and the operations page read it to show a pending change with who must act, a recent change
// where money is decided, and unusual patterns. The numbers stay sealed in the vendor's stream.
import { sql, type Transaction } from 'kysely';
import { type VendorEvent, vendorEvents } from '../../schema/vendors/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { eventDecoder } from '../../services/shared/decider.js';
import type { Projection, ProjectionContext } from '../projection.js';
import { rowsInsert } from '../rows-insert.js';
import type { BankingChangesTable, BankingChangesTables } from './tables.js';

const decode = eventDecoder(vendorEvents);

const HANDLES: VendorEvent['type'][] = [
  'VendorBankingChangeRequested',
  'VendorBankingChangeApproved',
  'VendorBankingChangeRejected',
  'VendorBankingChangeFrozen',
  'VendorBankingUpdated',
  'VendorForgotten',
];

/** The company of a vendor's stream (`vendor-<companyId>-<qbVendorId>`). */
const companyOfStream = (streamId: string) => Number(streamId.split('-')[1]);

export const bankingChangesProjection: Projection<BankingChangesTables> = {
  name: 'vendor_banking_changes',
  version: 1,
  tables: ['vendor_banking_changes'],
  handles: HANDLES,
  // The tails are plain in every event it reads: no key is opened.
  readsPersonal: () => false,
  async setup(db, schema) {
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'vendor_banking_changes')} (
      change_id text PRIMARY KEY,
      vendor_id integer NOT NULL,
      company_id integer NOT NULL,
      status text NOT NULL,
      source text NOT NULL,
      routing_last4 text,
      account_last4 text,
      account_type text NOT NULL,
      prev_routing_last4 text,
      prev_account_last4 text,
      requested_by integer,
      requested_at timestamptz NOT NULL,
      decided_by integer,
      decided_at timestamptz,
      reason text,
      verified_by text,
      live_at timestamptz
    )`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('vendor_banking_changes_vendor_idx')} ON ${sql.id(schema, 'vendor_banking_changes')} (vendor_id, requested_at DESC)`.execute(
      db,
    );
    // Patterns on the operations page: who changed how many in an hour.
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('vendor_banking_changes_by_idx')} ON ${sql.id(schema, 'vendor_banking_changes')} (requested_by, requested_at)`.execute(
      db,
    );
  },
  async apply(trx, stored, ctx) {
    await applyChange(trx, stored, decodeChange(stored), ctx);
  },
  // A CSV import or a batch makes thousands of new changes in a row: those go as one INSERT each run,
  // the rest one by one in log order (a run is written before the event after it).
  async applyBatch(trx, events, ctx) {
    let run: BankingChangesTable[] = [];
    const flush = async () => {
      if (run.length === 0) return;
      await trx.executeQuery(insertChanges(ctx.schema, run));
      run = [];
    };
    for (const stored of events) {
      if (!HANDLES.includes(stored.type as VendorEvent['type'])) continue;
      const event = decodeChange(stored);
      const row = addedRow(event, stored);
      // A change that replaces another also ends it: that one goes one by one, in order.
      if (row && !(event.type === 'VendorBankingChangeRequested' && event.data.replaces)) {
        run.push(row);
        notifyVendor(ctx, event, row.vendor_id, row.company_id);
        continue;
      }
      await flush();
      await applyChange(trx, stored, event, ctx);
    }
    await flush();
  },
};

const decodeChange = (stored: StoredEvent) => decode(stored, { sealed: 'absent' }) as VendorEvent;

const insertChanges = rowsInsert<BankingChangesTable>({
  table: 'vendor_banking_changes',
  columns: [
    ['change_id', 'text'],
    ['vendor_id', 'integer'],
    ['company_id', 'integer'],
    ['status', 'text'],
    ['source', 'text'],
    ['routing_last4', 'text'],
    ['account_last4', 'text'],
    ['account_type', 'text'],
    ['prev_routing_last4', 'text'],
    ['prev_account_last4', 'text'],
    ['requested_by', 'integer'],
    ['requested_at', 'timestamptz'],
    ['decided_by', 'integer'],
    ['decided_at', 'timestamptz'],
    ['reason', 'text'],
    ['verified_by', 'text'],
    ['live_at', 'timestamptz'],
  ],
  keepOn: 'change_id',
});

const notifyVendor = (ctx: ProjectionContext, event: VendorEvent, vendorId: number, companyId: number) =>
  ctx.notify({ topic: 'vendor', id: String(vendorId), data: { type: event.type, companyId } });

/**
 * The row an event adds (a change held, or live at once with the control off), or null for one that
 * only touches rows already there. Both paths write it with insertChanges.
 */
function addedRow(event: VendorEvent, stored: StoredEvent): BankingChangesTable | null {
  const companyId = companyOfStream(stored.streamId);
  if (event.type === 'VendorBankingChangeRequested') {
    const d = event.data;
    return {
      change_id: d.changeId,
      vendor_id: d.vendorId,
      company_id: companyId,
      status: 'pending',
      source: d.source,
      routing_last4: d.routingLast4,
      account_last4: d.accountLast4,
      account_type: d.accountType,
      prev_routing_last4: d.previous?.routingLast4 ?? null,
      prev_account_last4: d.previous?.accountLast4 ?? null,
      requested_by: d.byUserId,
      requested_at: new Date(d.at),
      decided_by: null,
      decided_at: null,
      reason: null,
      verified_by: null,
      live_at: null,
    };
  }
  if (
    event.type === 'VendorBankingUpdated' &&
    event.data.changeId &&
    event.data.verifiedBy?.kind === 'control-off'
  ) {
    const d = event.data;
    const at = new Date(d.at);
    return {
      change_id: d.changeId!,
      vendor_id: d.vendorId,
      company_id: companyId,
      status: 'live',
      source: d.source,
      routing_last4: d.routingLast4,
      account_last4: d.accountLast4,
      account_type: d.accountType,
      prev_routing_last4: null,
      prev_account_last4: null,
      requested_by: commandUser(stored),
      requested_at: at,
      decided_by: null,
      decided_at: null,
      reason: null,
      verified_by: 'control-off',
      live_at: at,
    };
  }
  return null;
}

/** The row an event adds, written as the batch path writes it, with its notice. */
async function insertAdded(
  trx: Transaction<BankingChangesTables>,
  ctx: ProjectionContext,
  event: VendorEvent,
  stored: StoredEvent,
) {
  const row = addedRow(event, stored);
  if (!row) return;
  await trx.executeQuery(insertChanges(ctx.schema, [row]));
  notifyVendor(ctx, event, row.vendor_id, row.company_id);
}

const commandUser = (stored: StoredEvent) =>
  stored.metadata.userId ? Number(stored.metadata.userId) || null : null;

async function applyChange(
  trx: Transaction<BankingChangesTables>,
  stored: StoredEvent,
  event: VendorEvent,
  ctx: ProjectionContext,
) {
  const db = trx.withSchema(ctx.schema);
  const notify = (vendorId: number, companyId: number) => notifyVendor(ctx, event, vendorId, companyId);
  switch (event.type) {
    case 'VendorBankingChangeRequested': {
      const d = event.data;
      if (d.replaces)
        await db
          .updateTable('vendor_banking_changes')
          .set({ status: 'rejected', decided_at: new Date(d.at), reason: 'Replaced by a newer change' })
          .where('change_id', '=', d.replaces)
          .where('status', 'in', ['pending', 'frozen'])
          .execute();
      await insertAdded(trx, ctx, event, stored);
      return;
    }
    case 'VendorBankingChangeApproved':
    case 'VendorBankingChangeRejected': {
      const d = event.data;
      await db
        .updateTable('vendor_banking_changes')
        .set({
          status: event.type === 'VendorBankingChangeApproved' ? 'approved' : 'rejected',
          decided_by: d.byUserId,
          decided_at: new Date(d.at),
          reason: d.reason,
        })
        .where('change_id', '=', d.changeId)
        .execute();
      notify(d.vendorId, companyOfStream(stored.streamId));
      return;
    }
    case 'VendorBankingChangeFrozen': {
      const d = event.data;
      await db
        .updateTable('vendor_banking_changes')
        .set({ status: 'frozen' })
        .where('change_id', '=', d.changeId)
        .where('status', '=', 'pending')
        .execute();
      notify(d.vendorId, companyOfStream(stored.streamId));
      return;
    }
    case 'VendorBankingUpdated': {
      const d = event.data;
      if (!d.changeId || !d.verifiedBy) return;
      const at = new Date(d.at);
      if (d.verifiedBy.kind === 'control-off') {
        // Live at once: a change all the same, flagged where money is decided.
        await insertAdded(trx, ctx, event, stored);
        return;
      } else {
        await db
          .updateTable('vendor_banking_changes')
          .set({
            status: 'approved',
            verified_by: d.verifiedBy.kind,
            live_at: at,
            decided_at: sql<Date>`coalesce(decided_at, ${at})`,
          })
          .where('change_id', '=', d.changeId)
          .execute();
      }
      notify(d.vendorId, companyOfStream(stored.streamId));
      return;
    }
    case 'VendorForgotten':
      // The tails go with the vendor.
      await db.deleteFrom('vendor_banking_changes').where('vendor_id', '=', event.data.vendorId).execute();
      return;
    default:
      return;
  }
}

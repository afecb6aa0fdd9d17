// The vendors read model: one row per vendor with its company, what QuickBooks
// says of it, and its bank details masked — only the last four digits and the type and bank name.
// The full numbers stay sealed in the vendor's stream; an unmask reads them from there.
import { type Kysely, sql, type Transaction } from 'kysely';
import { type VendorEvent, vendorEvents, vendorSyncEvents } from '../../schema/vendors/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { eventDecoder } from '../../services/shared/decider.js';
import type { Projection, ProjectionContext } from '../projection.js';
import { rowsInsert } from '../rows-insert.js';
import type { VendorReadTables, VendorsTable } from './tables.js';

export type {
  VendorReadTables,
  VendorSyncsTable,
  VendorSyncsTables,
  VendorsTable,
  VendorsTables,
} from './tables.js';

const decodeVendorEvent = eventDecoder(vendorEvents);
const decodeVendorSyncEvent = eventDecoder(vendorSyncEvents);

/** A row as the projection computes it (Postgres derives search_text). */
export type VendorRowValues = Omit<VendorsTable, 'search_text'>;

export const vendorsProjection: Projection<VendorReadTables> = {
  name: 'vendors',
  // 2: search_text, a stored column with the trigram index (the expression index planned badly).
  // 3: room on each page for in-place updates (fillfactor).
  // 4: bank numbers shown by shownTail, so a short one stored whole before is masked once rebuilt.
  // 5: a block after the bank returned a payment (blocked_at, block_code, block_description, block_trace).
  // 6: whether the vendor is mailed its remittance advice (remittance_advice).
  version: 6,
  tables: ['vendors'],
  handles: [
    'VendorCreated',
    'VendorChangedInQuickBooks',
    'VendorBankingUpdated',
    'VendorBankingCleared',
    'VendorBankingBlocked',
    'VendorBankingUnblocked',
    'VendorRemittanceAdviceSet',
    'VendorForgotten',
  ],
  // Bank details are kept as the tail a masked read shows, which the event carries in plain since
  // version 3 (versions 1 and 2 are opened: their tail is cut again from the numbers).
  readsPersonal: (e) => e.type !== 'VendorBankingUpdated' || e.schemaVersion < 3,
  async setup(db, schema) {
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'vendors')} (
      id integer PRIMARY KEY,
      company_id integer NOT NULL,
      qb_vendor_id text NOT NULL,
      name text NOT NULL,
      email text,
      phone text,
      active boolean NOT NULL,
      has_banking boolean NOT NULL DEFAULT false,
      routing_last4 text,
      account_last4 text,
      account_type text,
      bank_name text,
      banking_updated_at timestamptz,
      blocked_at timestamptz,
      block_code text,
      block_description text,
      block_trace text,
      remittance_advice boolean NOT NULL DEFAULT true,
      qb_synced_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      -- What the list's search matches (name or e-mail, any part), kept by Postgres for its trigram index.
      search_text text GENERATED ALWAYS AS (lower(name) || ' ' || coalesce(lower(email), '')) STORED,
      UNIQUE (company_id, qb_vendor_id)
    ) WITH (fillfactor = 75)`.execute(db);
    // fillfactor: bank details, activity and sync times change columns no index covers. With room on
    // the page Postgres rewrites such a row in place (HOT), without an entry in each of the five
    // indexes (one of them a trigram GIN); a CSV import updates thousands of rows at once.
    // The list: by name within the filters (company, banking, active); search by name or e-mail.
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('vendors_name_idx')} ON ${sql.id(schema, 'vendors')} (lower(name), id)`.execute(
      db,
    );
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('vendors_company_name_idx')} ON ${sql.id(schema, 'vendors')} (company_id, lower(name), id)`.execute(
      db,
    );
    await ensureTrigramExtension(db);
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('vendors_search_text_idx')} ON ${sql.id(schema, 'vendors')} USING gin (search_text gin_trgm_ops)`.execute(
      db,
    );
  },
  async apply(trx, stored, ctx) {
    await applyVendors(trx, [stored], ctx);
  },
  applyBatch: (trx, events, ctx) => applyVendors(trx, events, ctx),
};

/** The row after one event; undefined when the event changes nothing (a vendor not created yet). */
export function evolveVendorRow(
  row: VendorRowValues | undefined,
  event: VendorEvent,
): VendorRowValues | undefined {
  switch (event.type) {
    case 'VendorCreated': {
      if (row) return undefined;
      const d = event.data;
      const at = new Date(d.syncedAt);
      return {
        id: d.vendorId,
        company_id: d.companyId,
        qb_vendor_id: d.qbVendorId,
        name: d.name,
        email: d.email,
        phone: d.phone,
        active: d.active,
        has_banking: false,
        routing_last4: null,
        account_last4: null,
        account_type: null,
        bank_name: null,
        banking_updated_at: null,
        blocked_at: null,
        block_code: null,
        block_description: null,
        block_trace: null,
        remittance_advice: true,
        qb_synced_at: at,
        created_at: at,
        updated_at: at,
      };
    }
    case 'VendorChangedInQuickBooks': {
      if (!row) return undefined;
      const d = event.data;
      const at = new Date(d.syncedAt);
      return {
        ...row,
        ...(d.name !== undefined ? { name: d.name } : {}),
        ...(d.email !== undefined ? { email: d.email } : {}),
        ...(d.phone !== undefined ? { phone: d.phone } : {}),
        ...(d.active !== undefined ? { active: d.active } : {}),
        qb_synced_at: at,
        updated_at: at,
      };
    }
    case 'VendorBankingUpdated': {
      if (!row) return undefined;
      const d = event.data;
      const at = new Date(d.at);
      return {
        ...row,
        has_banking: true,
        routing_last4: d.routingLast4,
        account_last4: d.accountLast4,
        account_type: d.accountType,
        bank_name: d.bankName,
        banking_updated_at: at,
        updated_at: at,
      };
    }
    case 'VendorBankingCleared': {
      if (!row) return undefined;
      const at = new Date(event.data.at);
      return {
        ...row,
        has_banking: false,
        routing_last4: null,
        account_last4: null,
        account_type: null,
        bank_name: null,
        banking_updated_at: at,
        updated_at: at,
      };
    }
    case 'VendorBankingBlocked': {
      if (!row) return undefined;
      const d = event.data;
      const at = new Date(d.at);
      return {
        ...row,
        blocked_at: at,
        block_code: d.code,
        block_description: d.description,
        block_trace: d.traceNumber,
        updated_at: at,
      };
    }
    case 'VendorBankingUnblocked': {
      if (!row) return undefined;
      const at = new Date(event.data.at);
      return {
        ...row,
        blocked_at: null,
        block_code: null,
        block_description: null,
        block_trace: null,
        updated_at: at,
      };
    }
    case 'VendorRemittanceAdviceSet': {
      if (!row) return undefined;
      const at = new Date(event.data.at);
      return { ...row, remittance_advice: event.data.enabled, updated_at: at };
    }
    default:
      return undefined;
  }
}

/** The upsert of a batch's changed rows, one statement for any number (rows-insert.ts). */
const upsertVendors = rowsInsert<VendorRowValues>({
  table: 'vendors',
  columns: [
    ['id', 'integer'],
    ['company_id', 'integer'],
    ['qb_vendor_id', 'text'],
    ['name', 'text'],
    ['email', 'text'],
    ['phone', 'text'],
    ['active', 'boolean'],
    ['has_banking', 'boolean'],
    ['routing_last4', 'text'],
    ['account_last4', 'text'],
    ['account_type', 'text'],
    ['bank_name', 'text'],
    ['banking_updated_at', 'timestamptz'],
    ['blocked_at', 'timestamptz'],
    ['block_code', 'text'],
    ['block_description', 'text'],
    ['block_trace', 'text'],
    ['remittance_advice', 'boolean'],
    ['qb_synced_at', 'timestamptz'],
    ['created_at', 'timestamptz'],
    ['updated_at', 'timestamptz'],
  ],
  upsertOn: 'id',
});

/**
 * A batch of vendor events: read the rows it touches once, fold the events over them in memory,
 * write every changed row with one statement (a CSV import of 10,000 rows is a few statements, not
 * 10,000 updates).
 */
async function applyVendors(
  trx: Transaction<VendorReadTables>,
  events: StoredEvent[],
  ctx: ProjectionContext,
) {
  const decoded = events
    .filter((e) => vendorsProjection.handles.includes(e.type))
    .map((stored) =>
      decodeVendorEvent(stored, {
        sealed: vendorsProjection.readsPersonal?.(stored) === false ? 'absent' : 'refused',
      }),
    );
  if (decoded.length === 0) return;
  const memory = ctx.memory;
  const rows = new Map<number, VendorRowValues | undefined>();
  const unknown: number[] = [];
  for (const id of new Set(decoded.map((e) => e.data.vendorId))) {
    const known = memory?.rows.get(id) as VendorRowValues | undefined;
    if (known) rows.set(id, known);
    else if (!memory?.complete) unknown.push(id);
  }
  // One array parameter per read, not a placeholder per id (up to 5,000 of them).
  for (let i = 0; i < unknown.length; i += 5000) {
    const existing = await trx
      .withSchema(ctx.schema)
      .selectFrom('vendors')
      .selectAll()
      .where('id', '=', sql<number>`ANY(${unknown.slice(i, i + 5000)}::int[])`)
      .execute();
    for (const { search_text: _, ...r } of existing) rows.set(r.id, r);
  }
  const dirty = new Set<number>();
  const gone = new Set<number>();
  for (const event of decoded) {
    const id = event.data.vendorId;
    if (event.type === 'VendorForgotten') {
      // A forgotten vendor leaves the read model (its events stay, unreadable without the key).
      const companyId = rows.get(id)?.company_id ?? null;
      rows.delete(id);
      dirty.delete(id);
      gone.add(id);
      ctx.notify({ topic: 'vendor', id: String(id), data: { type: event.type, companyId } });
      continue;
    }
    if (gone.has(id)) continue;
    const next = evolveVendorRow(rows.get(id), event);
    if (next === undefined) continue;
    rows.set(id, next);
    dirty.add(id);
    // The company lets the gateway push it only to the staff of that company (staff scope).
    ctx.notify({ topic: 'vendor', id: String(id), data: { type: event.type, companyId: next.company_id } });
  }
  if (gone.size > 0) {
    await trx
      .withSchema(ctx.schema)
      .deleteFrom('vendors')
      .where('id', 'in', [...gone])
      .execute();
    if (memory) for (const id of gone) memory.rows.delete(id);
  }
  if (dirty.size === 0) return;
  const values = [...dirty].map((id) => rows.get(id)!);
  await trx.executeQuery(upsertVendors(ctx.schema, values));
  if (memory) for (const v of values) memory.rows.set(v.id, v);
}

// --- the syncs ----------------------------------------------------------------------------------

/** Each sync's request and outcome (the screen's result after the live progress). */
export const vendorSyncsProjection: Projection<VendorReadTables> = {
  name: 'vendor_syncs',
  version: 1,
  tables: ['vendor_syncs'],
  handles: ['VendorSyncRequested', 'VendorSyncCompleted'],
  async setup(db, schema) {
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'vendor_syncs')} (
      id text PRIMARY KEY,
      company_id integer NOT NULL,
      status text NOT NULL,
      synced integer NOT NULL DEFAULT 0,
      failed integer NOT NULL DEFAULT 0,
      error text,
      requested_at timestamptz NOT NULL,
      completed_at timestamptz
    )`.execute(db);
  },
  async apply(trx, stored, ctx) {
    const event = decodeVendorSyncEvent(stored);
    const db = trx.withSchema(ctx.schema);
    if (event.type === 'VendorSyncRequested') {
      await db
        .insertInto('vendor_syncs')
        .values({
          id: event.data.syncId,
          company_id: event.data.companyId,
          status: 'queued',
          synced: 0,
          failed: 0,
          error: null,
          requested_at: new Date(event.data.at),
          completed_at: null,
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    } else {
      const d = event.data;
      await db
        .updateTable('vendor_syncs')
        .set({
          status: d.error ? 'failed' : 'completed',
          synced: d.synced,
          failed: d.failed,
          error: d.error,
          completed_at: new Date(d.at),
        })
        .where('id', '=', d.syncId)
        .execute();
    }
    // The company lets the gateway push it only to the staff of that company (staff scope).
    ctx.notify({
      topic: 'vendorsync',
      id: event.data.syncId,
      data: { type: event.type, companyId: event.data.companyId },
    });
  },
};

// The search index needs pg_trgm (a trusted extension since PG 13, so no superuser). Two setups racing
// on a fresh database can both try to create it; the loser's unique violation means it is there.
async function ensureTrigramExtension<T>(db: Kysely<T>): Promise<void> {
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
  } catch (err) {
    if ((err as { code?: string }).code !== '23505') throw err;
  }
}

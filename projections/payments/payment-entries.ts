// The payments read model: every entry of a Billflow file by its trace number (from the approvals'
// NachaFileGenerated, whose vendors carry their traces), what the bank did with it (returned,
// corrected), and the files the bank sent back. Matching a return reads one row by its primary key,
// so it costs the same however many files are on record.
import { sql } from 'kysely';
import { approvalEvents } from '../../schema/approvals/events.js';
import { paymentsEvents } from '../../schema/payments/events.js';
import { eventDecoder } from '../../services/shared/decider.js';
import type { Projection } from '../projection.js';
import type { PaymentsTables } from './tables.js';

const decode = eventDecoder({ ...approvalEvents, ...paymentsEvents });

export const paymentEntriesProjection: Projection<PaymentsTables> = {
  name: 'payment_entries',
  // 3: each entry's bills (what it paid per bill), and entries found by their file.
  version: 3,
  tables: ['payment_entries', 'ach_inbound_files', 'ach_deliveries'],
  handles: [
    'NachaFileGenerated',
    'PaymentEntryReturned',
    'PaymentEntryCorrectionReceived',
    'AchInboundFileReceived',
    'AchInboundFileRefused',
    'AchInboundFileApplied',
    'AchDeliveryScheduled',
    'AchFileDelivered',
    'AchFileAcknowledged',
    'AchFileRejectedByBank',
    'AchDeliveryFailed',
  ],
  // The corrected numbers stay sealed: the rows keep their tails only.
  readsPersonal: () => false,
  async setup(db, schema) {
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'payment_entries')} (
      trace_number text PRIMARY KEY,
      approval_id text NOT NULL,
      company_id integer NOT NULL,
      qb_vendor_id text NOT NULL,
      vendor_name text NOT NULL,
      amount_cents bigint NOT NULL,
      account_last4 text NOT NULL,
      file_id text NOT NULL,
      file_name text NOT NULL,
      effective_date text NOT NULL,
      created_at timestamptz NOT NULL,
      status text NOT NULL,
      return_code text,
      return_description text,
      return_action text,
      returned_at timestamptz,
      change_code text,
      change_description text,
      corrected_account_last4 text,
      corrected_routing_last4 text,
      correction_due_by text,
      correction_received_at timestamptz,
      bills jsonb NOT NULL DEFAULT '[]'
    )`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('payment_entries_approval_idx')} ON ${sql.id(schema, 'payment_entries')} (approval_id)`.execute(
      db,
    );
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('payment_entries_file_idx')} ON ${sql.id(schema, 'payment_entries')} (file_id)`.execute(
      db,
    );
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'ach_inbound_files')} (
      file_id text PRIMARY KEY,
      file_name text NOT NULL,
      source text NOT NULL,
      by_user_id integer,
      status text NOT NULL,
      returns integer NOT NULL,
      corrections integer NOT NULL,
      other integer NOT NULL,
      applied integer,
      already_applied integer,
      parked jsonb NOT NULL,
      reasons jsonb NOT NULL,
      received_at timestamptz NOT NULL,
      applied_at timestamptz
    )`.execute(db);
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'ach_deliveries')} (
      approval_id text PRIMARY KEY,
      company_id integer NOT NULL,
      file_id text NOT NULL,
      version integer NOT NULL,
      file_name text NOT NULL,
      status text NOT NULL,
      window_at timestamptz,
      delivered_at timestamptz,
      size integer,
      sha256 text,
      found_there boolean,
      bank_answer text,
      bank_text text,
      failure text,
      updated_at timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('ach_deliveries_name_idx')} ON ${sql.id(schema, 'ach_deliveries')} (company_id, file_name)`.execute(
      db,
    );
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('ach_inbound_files_received_idx')} ON ${sql.id(schema, 'ach_inbound_files')} (received_at DESC)`.execute(
      db,
    );
  },
  // A bank's file returns thousands of entries in a row: each run of returns is one UPDATE, the rest
  // one by one in log order (a run is written before the event after it).
  async applyBatch(trx, events, ctx) {
    let run: Array<Extract<ReturnType<typeof decode>, { type: 'PaymentEntryReturned' }>['data']> = [];
    const flush = async () => {
      if (run.length === 0) return;
      const values = sql.join(
        run.map(
          (d) =>
            sql`(${d.traceNumber}, ${d.returnCode}, ${d.description}, ${d.action}, ${new Date(d.at)}::timestamptz)`,
        ),
      );
      await sql`UPDATE ${sql.id(ctx.schema, 'payment_entries')} AS e
        SET status = 'returned', return_code = v.code, return_description = v.description,
            return_action = v.action, returned_at = v.at
        FROM (VALUES ${values}) AS v(trace, code, description, action, at)
        WHERE e.trace_number = v.trace`.execute(trx);
      run = [];
    };
    for (const stored of events) {
      if (stored.type === 'PaymentEntryReturned') {
        const event = decode(stored, { sealed: 'absent' });
        if (event.type === 'PaymentEntryReturned') run.push(event.data);
        continue;
      }
      await flush();
      await paymentEntriesProjection.apply(trx, stored, ctx);
    }
    await flush();
  },
  async apply(trx, stored, ctx) {
    const event = decode(stored, { sealed: 'absent' });
    const db = trx.withSchema(ctx.schema);
    switch (event.type) {
      case 'NachaFileGenerated': {
        const d = event.data;
        const rows = d.vendors
          .filter((v) => v.traceNumber !== undefined)
          .map((v) => ({
            trace_number: v.traceNumber!,
            approval_id: d.approvalId,
            company_id: d.companyId,
            qb_vendor_id: v.qbVendorId,
            vendor_name: v.name,
            amount_cents: v.amountCents,
            account_last4: v.accountLast4,
            file_id: d.fileId,
            file_name: d.fileName,
            effective_date: d.effectiveDate,
            created_at: new Date(d.at),
            status: 'sent' as const,
            return_code: null,
            return_description: null,
            return_action: null,
            returned_at: null,
            change_code: null,
            change_description: null,
            corrected_account_last4: null,
            corrected_routing_last4: null,
            correction_due_by: null,
            correction_received_at: null,
            // A file made before per-bill amounts were kept: a vendor's one bill took the whole entry.
            bills: JSON.stringify(
              v.bills ??
                v.billIds.map((billId) => ({
                  billId,
                  amountCents: v.billIds.length === 1 ? v.amountCents : 0,
                })),
            ) as never,
          }));
        if (rows.length > 0)
          await db
            .insertInto('payment_entries')
            .values(rows)
            .onConflict((oc) => oc.column('trace_number').doNothing())
            .execute();
        return;
      }
      case 'PaymentEntryReturned': {
        const d = event.data;
        await db
          .updateTable('payment_entries')
          .set({
            status: 'returned',
            return_code: d.returnCode,
            return_description: d.description,
            return_action: d.action,
            returned_at: new Date(d.at),
          })
          .where('trace_number', '=', d.traceNumber)
          .execute();
        return;
      }
      case 'PaymentEntryCorrectionReceived': {
        const d = event.data;
        await db
          .updateTable('payment_entries')
          .set({
            change_code: d.changeCode,
            change_description: d.description,
            corrected_account_last4: d.correctedAccountLast4,
            corrected_routing_last4: d.correctedRoutingLast4,
            correction_due_by: d.dueBy,
            correction_received_at: new Date(d.at),
          })
          .where('trace_number', '=', d.traceNumber)
          .execute();
        return;
      }
      case 'AchInboundFileReceived':
      case 'AchInboundFileRefused': {
        const d = event.data;
        const received = event.type === 'AchInboundFileReceived' ? event.data : null;
        await db
          .insertInto('ach_inbound_files')
          .values({
            file_id: d.fileId,
            file_name: d.fileName,
            source: d.source,
            by_user_id: d.byUserId,
            status: received ? 'received' : 'refused',
            returns: received?.returns ?? 0,
            corrections: received?.corrections ?? 0,
            other: received?.other ?? 0,
            applied: null,
            already_applied: null,
            parked: sql`'[]'::jsonb` as never,
            reasons: JSON.stringify(
              event.type === 'AchInboundFileRefused' ? event.data.reasons : [],
            ) as never,
            received_at: new Date(d.at),
            applied_at: null,
          })
          .onConflict((oc) => oc.column('file_id').doNothing())
          .execute();
        ctx.notify({ topic: 'ach-inbound', id: d.fileId });
        return;
      }
      case 'AchDeliveryScheduled': {
        const d = event.data;
        const row = {
          company_id: d.companyId,
          file_id: d.fileId,
          version: d.version,
          file_name: d.fileName,
          status: 'scheduled' as const,
          window_at: new Date(d.windowAt),
          delivered_at: null,
          size: null,
          sha256: null,
          found_there: null,
          bank_answer: null,
          bank_text: null,
          failure: null,
          updated_at: new Date(d.at),
        };
        await db
          .insertInto('ach_deliveries')
          .values({ approval_id: d.approvalId, ...row })
          .onConflict((oc) => oc.column('approval_id').doUpdateSet(row))
          .execute();
        ctx.notify({ topic: 'approval', id: d.approvalId, data: { type: event.type } });
        return;
      }
      case 'AchFileDelivered': {
        const d = event.data;
        await db
          .updateTable('ach_deliveries')
          .set({
            status: 'delivered',
            delivered_at: new Date(d.at),
            size: d.size,
            sha256: d.sha256,
            found_there: d.foundThere,
            updated_at: new Date(d.at),
          })
          .where('approval_id', '=', d.approvalId)
          .execute();
        ctx.notify({ topic: 'approval', id: d.approvalId, data: { type: event.type } });
        return;
      }
      case 'AchFileAcknowledged':
      case 'AchFileRejectedByBank': {
        const d = event.data;
        await db
          .updateTable('ach_deliveries')
          .set({
            bank_answer: event.type === 'AchFileAcknowledged' ? 'acknowledged' : 'rejected',
            bank_text: d.bankText,
            updated_at: new Date(d.at),
          })
          .where('approval_id', '=', d.approvalId)
          .execute();
        ctx.notify({ topic: 'approval', id: d.approvalId, data: { type: event.type } });
        return;
      }
      case 'AchDeliveryFailed': {
        const d = event.data;
        await db
          .updateTable('ach_deliveries')
          .set({ status: 'failed', failure: d.reason, updated_at: new Date(d.at) })
          .where('approval_id', '=', d.approvalId)
          .execute();
        ctx.notify({ topic: 'approval', id: d.approvalId, data: { type: event.type } });
        return;
      }
      case 'AchInboundFileApplied': {
        const d = event.data;
        await db
          .updateTable('ach_inbound_files')
          .set({
            status: 'applied',
            applied: d.applied,
            already_applied: d.alreadyApplied,
            parked: JSON.stringify(d.parked) as never,
            applied_at: new Date(d.at),
          })
          .where('file_id', '=', d.fileId)
          .execute();
        ctx.notify({ topic: 'ach-inbound', id: d.fileId });
        return;
      }
    }
  },
};

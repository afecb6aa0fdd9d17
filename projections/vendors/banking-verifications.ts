// The vendor's side of each bank detail change, for the screens: whether its contact on record was
// told (or could not be: no e-mail on record; or the notice was not delivered), and its latest
// micro-deposit verification (status, tries left, file, dates, whether its link was delivered).
// Never an amount: those stay sealed in the vendor's stream.
import { sql, type Transaction } from 'kysely';
import { type VendorEvent, vendorEvents } from '../../schema/vendors/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { eventDecoder } from '../../services/shared/decider.js';
import type { Projection, ProjectionContext } from '../projection.js';
import type { BankingVerificationsTables } from './tables.js';

const decode = eventDecoder(vendorEvents);

const HANDLES: VendorEvent['type'][] = [
  'VendorBankingChangeNoticed',
  'VendorBankingMailEnded',
  'VendorMicroDepositsSent',
  'VendorMicroDepositsMismatched',
  'VendorMicroDepositsConfirmed',
  'VendorForgotten',
];

const companyOfStream = (streamId: string) => Number(streamId.split('-')[1]);

export const bankingVerificationsProjection: Projection<BankingVerificationsTables> = {
  name: 'vendor_banking_verifications',
  // 2: a notice or a micro-deposit link not delivered (VendorBankingMailEnded).
  version: 2,
  tables: ['vendor_banking_verifications'],
  handles: HANDLES,
  // The amounts are the only personal field here, and they are never read.
  readsPersonal: () => false,
  async setup(db, schema) {
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'vendor_banking_verifications')} (
      change_id text PRIMARY KEY,
      vendor_id integer NOT NULL,
      company_id integer NOT NULL,
      contact_notice text,
      verification_id text,
      md_status text,
      md_tries_left integer,
      md_file_id text,
      md_file_name text,
      md_effective_date text,
      md_sent_at timestamptz,
      md_expires_at timestamptz,
      md_started_by integer,
      md_link_undelivered boolean NOT NULL DEFAULT false
    )`.execute(db);
    // A start over the version-1 table (before its rebuild) reads and writes the new column too.
    await sql`ALTER TABLE ${sql.id(schema, 'vendor_banking_verifications')}
      ADD COLUMN IF NOT EXISTS md_link_undelivered boolean NOT NULL DEFAULT false`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('vendor_banking_verifications_vendor_idx')} ON ${sql.id(schema, 'vendor_banking_verifications')} (vendor_id)`.execute(
      db,
    );
  },
  async apply(trx, stored, ctx) {
    await applyVerification(trx, stored, ctx);
  },
};

async function applyVerification(
  trx: Transaction<BankingVerificationsTables>,
  stored: StoredEvent,
  ctx: ProjectionContext,
) {
  const event = decode(stored, { sealed: 'absent' }) as VendorEvent;
  const db = trx.withSchema(ctx.schema);
  const companyId = companyOfStream(stored.streamId);
  const row = (vendorId: number, changeId: string) => ({
    change_id: changeId,
    vendor_id: vendorId,
    company_id: companyId,
  });
  const notify = (vendorId: number) =>
    ctx.notify({ topic: 'vendor', id: String(vendorId), data: { type: event.type, companyId } });
  switch (event.type) {
    case 'VendorBankingChangeNoticed': {
      const d = event.data;
      await db
        .insertInto('vendor_banking_verifications')
        .values({ ...row(d.vendorId, d.changeId), contact_notice: d.outcome })
        .onConflict((oc) => oc.column('change_id').doUpdateSet({ contact_notice: d.outcome }))
        .execute();
      notify(d.vendorId);
      return;
    }
    case 'VendorBankingMailEnded': {
      const d = event.data;
      const failed = d.outcome === 'failed';
      if (d.mail === 'change-notice')
        await db
          .insertInto('vendor_banking_verifications')
          .values({ ...row(d.vendorId, d.changeId), contact_notice: failed ? 'undelivered' : 'sent' })
          .onConflict((oc) =>
            oc.column('change_id').doUpdateSet({ contact_notice: failed ? 'undelivered' : 'sent' }),
          )
          .execute();
      else
        await db
          .updateTable('vendor_banking_verifications')
          .set({ md_link_undelivered: failed })
          .where('change_id', '=', d.changeId)
          .execute();
      notify(d.vendorId);
      return;
    }
    case 'VendorMicroDepositsSent': {
      const d = event.data;
      const md = {
        md_link_undelivered: false,
        verification_id: d.verificationId,
        md_status: 'sent' as const,
        md_tries_left: d.tries,
        md_file_id: d.fileId,
        md_file_name: d.fileName,
        md_effective_date: d.effectiveDate,
        md_sent_at: new Date(d.at),
        md_expires_at: new Date(d.expiresAt),
        md_started_by: d.byUserId,
      };
      await db
        .insertInto('vendor_banking_verifications')
        .values({ ...row(d.vendorId, d.changeId), ...md })
        .onConflict((oc) => oc.column('change_id').doUpdateSet(md))
        .execute();
      notify(d.vendorId);
      return;
    }
    case 'VendorMicroDepositsMismatched':
    case 'VendorMicroDepositsConfirmed': {
      const d = event.data;
      const set =
        event.type === 'VendorMicroDepositsConfirmed'
          ? { md_status: 'confirmed' as const }
          : {
              md_tries_left: event.data.triesLeft,
              md_status: event.data.triesLeft === 0 ? ('locked' as const) : ('sent' as const),
            };
      await db
        .updateTable('vendor_banking_verifications')
        .set(set)
        .where('change_id', '=', d.changeId)
        .where('verification_id', '=', d.verificationId)
        .execute();
      notify(d.vendorId);
      return;
    }
    case 'VendorForgotten':
      await db
        .deleteFrom('vendor_banking_verifications')
        .where('vendor_id', '=', event.data.vendorId)
        .execute();
      return;
    default:
      return;
  }
}

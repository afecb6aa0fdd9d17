// Each company's control on bank detail changes as the approval reads see it (the vendors' events on
// stream `bankingcontrol-<companyId>`): how many days a change is flagged where money is decided (the
// approvals list, /bills, the detail). One row per company that ever set it; a company without one has
// the default (on, 30 days). A read model, so a list page reads the window in the same query as the
// changes, and the list's kept answers are dropped when it moves.
import { sql } from 'kysely';
import { bankingControlEvents } from '../../schema/vendors/events.js';
import { eventDecoder } from '../../services/shared/decider.js';
import type { Projection } from '../projection.js';
import type { ApprovalReadTables } from './tables.js';

const decode = eventDecoder(bankingControlEvents);

/** As services/vendors/banking-control-decider.ts has it for a company that never set its control. */
export const DEFAULT_FLAG_DAYS = 30;

export const bankingControlsProjection: Projection<ApprovalReadTables> = {
  name: 'banking_controls',
  version: 1,
  tables: ['banking_controls'],
  handles: ['BankingChangeControlSet'],
  readsPersonal: () => false,
  async setup(db, schema) {
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'banking_controls')} (
      company_id integer PRIMARY KEY,
      enabled boolean NOT NULL,
      flag_days integer NOT NULL,
      set_by integer,
      set_at timestamptz NOT NULL
    )`.execute(db);
  },
  async apply(trx, stored, ctx) {
    const d = decode(stored).data;
    const row = {
      company_id: d.companyId,
      enabled: d.enabled,
      flag_days: d.flagDays,
      set_by: d.byUserId,
      set_at: new Date(d.at),
    };
    // Each event carries the whole control: the last one wins, and a replay writes the same row.
    await trx
      .withSchema(ctx.schema)
      .insertInto('banking_controls')
      .values(row)
      .onConflict((oc) =>
        oc.column('company_id').doUpdateSet({
          enabled: row.enabled,
          flag_days: row.flag_days,
          set_by: row.set_by,
          set_at: row.set_at,
        }),
      )
      .execute();
  },
};

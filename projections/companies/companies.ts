// The companies read model: one row per company. The NACHA settings are kept
// with the bank account number masked: the full number stays sealed in the log, and only the NACHA
// writer reads it from there. The bank connection likewise: whether a password or key is set, never
// the secret.
import { type Insertable, sql, type Updateable } from 'kysely';
import { companyEvents } from '../../schema/companies/events.js';
import { eventDecoder } from '../../services/shared/decider.js';
import type { Projection } from '../projection.js';
import type {
  BankConnectionCheckView,
  BankConnectionView,
  CompaniesTable,
  CompaniesTables,
} from './tables.js';

const decodeCompanyEvent = eventDecoder(companyEvents);

export type {
  BankConnectionCheckView,
  BankConnectionView,
  CompaniesTable,
  CompaniesTables,
  MaskedNacha,
} from './tables.js';

/** The settings as the read model and the API show them: the account number masked. */

/** Only the last four characters show, as banks print them. */
export const maskAccountNumber = (n: string) =>
  n.length <= 4 ? '*'.repeat(n.length) : `${'*'.repeat(n.length - 4)}${n.slice(-4)}`;

const ROLE_COLUMN = {
  manager: 'manager_id',
  processor: 'processor_id',
  approver: 'approver_id',
  accountant: 'accountant_id',
} as const;

export const companiesProjection: Projection<CompaniesTables> = {
  name: 'companies',
  // 2: the QuickBooks connection's realm, status and last refresh. 3: the bank connection and its check.
  // 4: whether the company sends Same-Day ACH.
  version: 4,
  tables: ['companies'],
  handles: [
    'CompanyCreated',
    'CompanyUpdated',
    'CompanyAssignmentChanged',
    'CompanyPaymentAccountChanged',
    'CompanyNachaConfigured',
    'CompanySameDayAchSet',
    'CompanyBankConnectionSet',
    'CompanyBankConnectionChecked',
    'CompanyQbCredentialsRemoved',
    'CompanyQbConnected',
    'CompanyQbTokensRefreshed',
    'CompanyQbConnectionLost',
    'CompanyActivated',
    'CompanyDeactivated',
    'CompanyDeleted',
  ],
  async setup(db, schema) {
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'companies')} (
      id integer PRIMARY KEY,
      name text NOT NULL,
      name_lower text NOT NULL,
      email text,
      phone text,
      website text,
      address text,
      description text,
      industry text,
      status text NOT NULL,
      manager_id integer,
      processor_id integer,
      approver_id integer,
      accountant_id integer,
      qb_realm_id text,
      qb_connection_status text,
      qb_last_refresh timestamptz,
      qb_payment_account_reference text,
      nacha jsonb,
      same_day_ach boolean NOT NULL DEFAULT false,
      bank_connection jsonb,
      bank_check jsonb,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      deleted_at timestamptz
    )`.execute(db);
    await sql`CREATE INDEX IF NOT EXISTS ${sql.id('companies_created_idx')} ON ${sql.id(schema, 'companies')} (created_at DESC, id DESC)`.execute(
      db,
    );
    for (const column of Object.values(ROLE_COLUMN))
      await sql`CREATE INDEX IF NOT EXISTS ${sql.id(`companies_${column}_idx`)} ON ${sql.id(schema, 'companies')} (${sql.id(column)})`.execute(
        db,
      );
  },
  async apply(trx, stored, ctx) {
    const event = decodeCompanyEvent(stored);
    if (
      event.type === 'CompanyNameClaimed' ||
      event.type === 'CompanyNameReleased' ||
      event.type === 'CompanyQbRealmClaimed' ||
      event.type === 'CompanyQbRealmReleased' ||
      event.type === 'CompanyQbReconsentDue'
    )
      return;
    const db = trx.withSchema(ctx.schema);
    const id = event.data.companyId;
    const update = (set: Updateable<CompaniesTable>, at: string) =>
      db
        .updateTable('companies')
        .set({ ...set, updated_at: new Date(at) })
        .where('id', '=', id)
        .execute();
    switch (event.type) {
      case 'CompanyCreated': {
        const d = event.data;
        const row: Insertable<CompaniesTable> = {
          id,
          name: d.name,
          name_lower: d.name.toLowerCase(),
          email: d.email,
          phone: d.phone,
          website: d.website,
          address: d.address,
          description: d.description,
          industry: d.industry,
          status: d.status,
          manager_id: d.managerId,
          processor_id: d.processorId,
          approver_id: d.approverId,
          accountant_id: d.accountantId,
          qb_payment_account_reference: d.qbPaymentAccountReference,
          created_at: new Date(d.createdAt),
          updated_at: new Date(d.createdAt),
        };
        // A replayed batch (a crash before its checkpoint moved) finds its own row.
        await db
          .insertInto('companies')
          .values(row)
          .onConflict((oc) => oc.column('id').doNothing())
          .execute();
        break;
      }
      case 'CompanyUpdated': {
        const { companyId: _id, updatedAt, ...changes } = event.data;
        await update(
          {
            ...changes,
            ...(changes.name !== undefined ? { name_lower: changes.name.toLowerCase() } : {}),
          },
          updatedAt,
        );
        break;
      }
      case 'CompanyAssignmentChanged':
        await update({ [ROLE_COLUMN[event.data.role]]: event.data.to }, event.data.at);
        break;
      case 'CompanyPaymentAccountChanged':
        await update({ qb_payment_account_reference: event.data.accountReference }, event.data.at);
        break;
      case 'CompanySameDayAchSet':
        await update({ same_day_ach: event.data.sameDayAch }, event.data.at);
        break;
      case 'CompanyNachaConfigured': {
        const { companyId: _id, at, bankAccountNumber, ...rest } = event.data;
        // Erased (the company forgotten): no number to mask.
        const masked = typeof bankAccountNumber === 'string' ? maskAccountNumber(bankAccountNumber) : '';
        await update({ nacha: JSON.stringify({ ...rest, bankAccountNumber: masked }) as never }, at);
        break;
      }
      case 'CompanyBankConnectionSet': {
        const { companyId: _id, at, password, privateKey, ...rest } = event.data;
        // Erased (the company forgotten): null, so not set.
        const view: BankConnectionView = {
          ...rest,
          passwordSet: typeof password === 'string' && password !== '',
          keySet: typeof privateKey === 'string' && privateKey !== '',
        };
        // A new connection has not been checked yet.
        await update({ bank_connection: JSON.stringify(view) as never, bank_check: null }, at);
        break;
      }
      case 'CompanyBankConnectionChecked': {
        const { companyId: _id, ...check } = event.data;
        // A check changes nothing anyone set: "Last Updated" stays.
        await db
          .updateTable('companies')
          .set({ bank_check: JSON.stringify(check satisfies BankConnectionCheckView) as never })
          .where('id', '=', id)
          .execute();
        break;
      }
      case 'CompanyQbCredentialsRemoved':
        await update({ qb_realm_id: null, qb_connection_status: null, qb_last_refresh: null }, event.data.at);
        break;
      case 'CompanyQbConnected':
        await update(
          {
            qb_realm_id: event.data.realmId,
            qb_connection_status: 'connected',
            qb_last_refresh: new Date(event.data.at),
          },
          event.data.at,
        );
        break;
      case 'CompanyQbTokensRefreshed':
        // Hourly housekeeping, not a change anyone made: "Last Updated" stays.
        await db
          .updateTable('companies')
          .set({
            qb_realm_id: event.data.realmId,
            qb_connection_status: 'connected',
            qb_last_refresh: new Date(event.data.at),
          })
          .where('id', '=', id)
          .execute();
        break;
      case 'CompanyQbConnectionLost':
        await update({ qb_connection_status: event.data.status }, event.data.at);
        break;
      case 'CompanyActivated':
        await update({ status: 'ACTIVE' }, event.data.at);
        break;
      case 'CompanyDeactivated':
        await update({ status: 'INACTIVE' }, event.data.at);
        break;
      case 'CompanyDeleted':
        await update({ deleted_at: new Date(event.data.at) }, event.data.at);
        break;
    }
    ctx.notify({ topic: 'company', id: String(id), data: { type: event.type } });
  },
};

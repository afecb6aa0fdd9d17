// Companies read model: events in, rows out; the NACHA settings land with the account number masked,
// and a replayed batch leaves the same rows.
import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyEvent } from '../../schema/companies/events.js';
import { schemaVersionOf } from '../../schema/shared/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { type CompaniesTables, companiesProjection, maskAccountNumber } from './companies.js';

let tdb: TestDatabase;
let db: Kysely<CompaniesTables>;
const t0 = '2026-03-01T10:00:00.000Z';
const t1 = '2026-03-02T10:00:00.000Z';
let pos = 0;
const stored = (event: CompanyEvent): StoredEvent => {
  pos++;
  return {
    id: randomUUID(),
    type: event.type,
    schemaVersion: schemaVersionOf(event.type),
    streamId: `company-${event.data.companyId}`,
    streamVersion: pos,
    position: String(pos).padStart(10, '0'),
    data: event.data,
    metadata: {},
    createdAt: new Date(t1),
  };
};

const history = [
  stored({
    type: 'CompanyCreated',
    data: {
      companyId: 1,
      name: 'Acme Corp',
      email: 'ap@acme.com',
      phone: null,
      website: null,
      address: null,
      description: null,
      industry: 'Retail',
      status: 'ACTIVE',
      managerId: 3,
      processorId: null,
      approverId: null,
      accountantId: null,
      qbPaymentAccountReference: null,
      createdAt: t0,
    },
  }),
  stored({
    type: 'CompanyUpdated',
    data: { companyId: 1, name: 'Acme Holdings', phone: '555', updatedAt: t1 },
  }),
  stored({
    type: 'CompanyAssignmentChanged',
    data: { companyId: 1, role: 'approver', from: null, to: 9, at: t1 },
  }),
  stored({ type: 'CompanyPaymentAccountChanged', data: { companyId: 1, accountReference: '35', at: t1 } }),
  stored({
    type: 'CompanyNachaConfigured',
    data: {
      companyId: 1,
      bankRoutingNumber: '021000021',
      bankAccountNumber: '000123456789',
      bankAccountType: 'checking',
      bankName: 'CHASE',
      originatorStatusCode: '1',
      companyTaxId: '123456789',
      achCompanyId: null,
      immediateDestinationName: 'JPMORGAN CHASE',
      immediateOriginName: 'ACME HOLDINGS',
      companyEntryDescription: 'BILL PAY',
      companyDiscretionaryData: null,
      balancedFile: true,
      at: t1,
    },
  }),
  stored({ type: 'CompanyDeactivated', data: { companyId: 1, at: t1 } }),
];

beforeAll(async () => {
  tdb = await createTestDatabase('companies');
  db = new Kysely({ dialect: new PostgresDialect({ pool: tdb.pool }) });
  await companiesProjection.setup(db, 'public');
});
afterAll(async () => {
  await tdb.drop();
});

describe('companies projection', () => {
  it('masks account numbers to their last four', () => {
    expect(maskAccountNumber('000123456789')).toBe('********6789');
    expect(maskAccountNumber('123')).toBe('***');
  });

  it('turns the history into the expected row, the account number masked, and a replay changes nothing', async () => {
    const apply = () =>
      db.transaction().execute(async (trx) => {
        for (const e of history)
          await companiesProjection.apply(trx, e, { schema: 'public', notify: () => {} });
      });
    await apply();
    const rows = await db.selectFrom('companies').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      name: 'Acme Holdings',
      name_lower: 'acme holdings',
      phone: '555',
      manager_id: 3,
      approver_id: 9,
      qb_payment_account_reference: '35',
      status: 'INACTIVE',
      created_at: new Date(t0),
    });
    expect(rows[0].nacha).toMatchObject({
      bankAccountNumber: '********6789',
      balancedFile: true,
      bankName: 'CHASE',
    });
    expect(JSON.stringify(rows[0])).not.toContain('000123456789');
    await apply();
    expect(await db.selectFrom('companies').selectAll().execute()).toEqual(rows);
  });
});

// Companies read model: events in, rows out; the NACHA settings land with the account number masked,
// the bank connection with whether a secret is set (never the secret), and a replayed batch leaves
// the same rows.
import { describe, expect, it } from 'vitest';
import type { CompanyEvent } from '../../schema/companies/events.js';
import { projectionSpec, storedEvent } from '../../test/support/projection-spec.js';
import { companiesProjection, maskAccountNumber } from './companies.js';

const spec = projectionSpec(companiesProjection);
const t0 = '2026-03-01T10:00:00.000Z';
const t1 = '2026-03-02T10:00:00.000Z';
const stored = (event: CompanyEvent) =>
  storedEvent(event, { streamId: `company-${event.data.companyId}`, at: t1 });

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

describe('companies projection', () => {
  it('masks account numbers to their last four', () => {
    expect(maskAccountNumber('000123456789')).toBe('********6789');
    expect(maskAccountNumber('123')).toBe('***');
  });

  it('keeps the bank connection without its secret, and its last check until the connection changes', async () => {
    const fingerprint = `SHA256:${'B'.repeat(43)}`;
    const connection = {
      mode: 'sftp' as const,
      host: 'sftp.bank.example',
      port: 22,
      username: 'acme',
      password: 'correct horse',
      privateKey: null,
      inbox: '/in',
      outbox: '/out',
      hostKeyFingerprint: fingerprint,
      windows: ['10:00'],
    };
    const checked = stored({
      type: 'CompanyBankConnectionChecked',
      data: {
        companyId: 1,
        ok: true,
        message: 'Logged in as acme',
        host: 'sftp.bank.example',
        hostKeyFingerprint: fingerprint,
        inboxFiles: 0,
        outboxFiles: 3,
        at: '2026-03-03T10:00:00.000Z',
      },
    });
    const set = stored({ type: 'CompanyBankConnectionSet', data: { companyId: 1, ...connection, at: t1 } });
    await spec.when([history[0], set, checked]).then(async ({ read }) => {
      const [row] = await read('companies');
      expect(row.bank_connection).toEqual({
        mode: 'sftp',
        host: 'sftp.bank.example',
        port: 22,
        username: 'acme',
        passwordSet: true,
        keySet: false,
        inbox: '/in',
        outbox: '/out',
        hostKeyFingerprint: fingerprint,
        windows: ['10:00'],
      });
      expect(row.bank_check).toMatchObject({ ok: true, outboxFiles: 3 });
      // A check is not a change anyone made: "Last Updated" stays at the connection's.
      expect(row.updated_at).toEqual(new Date(t1));
      expect(JSON.stringify(row)).not.toContain('correct horse');
    });
    const manual = stored({
      type: 'CompanyBankConnectionSet',
      data: {
        companyId: 1,
        mode: 'manual',
        host: null,
        port: null,
        username: null,
        password: null,
        privateKey: null,
        inbox: null,
        outbox: null,
        hostKeyFingerprint: null,
        windows: ['10:00'],
        at: t1,
      },
    });
    await spec.when([history[0], set, checked, manual]).then(async ({ read }) => {
      const [row] = await read('companies');
      expect(row.bank_connection).toMatchObject({ mode: 'manual', passwordSet: false, keySet: false });
      expect(row.bank_check).toBeNull();
    });
  });

  it('turns the history into the expected row, the account number masked, and a replay changes nothing', async () => {
    await spec.when(history).then(async ({ read }) => {
      const rows = await read('companies');
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
      // The same history again over the rows it wrote.
      await spec.given(history).when(history).thenRows('companies', rows);
    });
  });
});

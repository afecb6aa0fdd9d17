// Vendors read model: bank details land as the tail a masked read shows, from events the projector
// need not open (version 3 carries it in plain) and from version 1 and 2 events, which come opened.
import { describe, expect, it } from 'vitest';
import '../../services/modules/index.js';
import { decodeEvent } from '../../schema/shared/events.js';
import { projectionSpec, storedEvent, type Then } from '../../test/support/projection-spec.js';
import { type VendorReadTables, vendorsProjection } from './vendors.js';

// Every run applies the events one by one and in a batch (with no memory, a live run's, a
// rebuild's), and holds them to the same rows.
const spec = projectionSpec(vendorsProjection);
const at = '2026-03-01T10:00:00.000Z';
const stored = (type: string, data: Record<string, unknown>, schemaVersion: number) =>
  storedEvent(type, data, { streamId: `vendor-1-${data.vendorId}`, schemaVersion, at });
const created = (vendorId: number) =>
  stored(
    'VendorCreated',
    {
      vendorId,
      companyId: 1,
      qbVendorId: String(vendorId),
      name: `Vendor ${vendorId}`,
      email: null,
      phone: null,
      active: true,
      syncedAt: at,
    },
    1,
  );
// As the log holds it and a live projector now gets it: the numbers sealed, the tail in plain.
const sealedBanking = (vendorId: number) =>
  stored(
    'VendorBankingUpdated',
    {
      vendorId,
      pii: {
        k: `vendor-${vendorId}`,
        iv: 'AAAAAAAAAAAAAAAA',
        ct: 'c2VhbGVk',
        f: ['routingNumber', 'accountNumber'],
      },
      routingLast4: '0021',
      accountLast4: '6789',
      accountType: 'savings',
      bankName: 'Chase',
      source: 'csv',
      at,
    },
    3,
  );

/** A vendor's row, as the events left it. */
const rowOf = async ({ read }: Then<VendorReadTables>, id: number) => {
  const row = (await read('vendors')).find((r) => r.id === id);
  if (!row) throw new Error(`no vendor ${id}`);
  return row;
};

describe('vendors projection', () => {
  it('asks for the personal fields of every event but a version 3 bank-details update', () => {
    expect(vendorsProjection.readsPersonal?.(sealedBanking(1))).toBe(false);
    expect(vendorsProjection.readsPersonal?.({ ...sealedBanking(1), schemaVersion: 1 })).toBe(true);
    expect(vendorsProjection.readsPersonal?.({ ...sealedBanking(1), schemaVersion: 2 })).toBe(true);
    expect(vendorsProjection.readsPersonal?.(created(1))).toBe(true);
  });

  it('keeps the last four digits of a bank-details update it got still sealed', () =>
    spec.when([created(1), sealedBanking(1)]).then(async (then) => {
      expect(await rowOf(then, 1)).toMatchObject({
        has_banking: true,
        routing_last4: '0021',
        account_last4: '6789',
        account_type: 'savings',
        bank_name: 'Chase',
      });
    }));

  it('cuts the last four digits from an opened version 1 event', async () => {
    const v1 = stored(
      'VendorBankingUpdated',
      {
        vendorId: 2,
        routingNumber: '026009593',
        accountNumber: '7000001234',
        accountType: 'checking',
        bankName: null,
        source: 'form',
        at,
      },
      1,
    );
    await spec
      .when([created(2), v1])
      .then(async (then) =>
        expect(await rowOf(then, 2)).toMatchObject({ routing_last4: '9593', account_last4: '1234' }),
      );
  });

  it('never keeps a short account number whole, from an opened version 2 event that held it in plain', async () => {
    const v2 = (vendorId: number, accountNumber: string) =>
      stored(
        'VendorBankingUpdated',
        {
          vendorId,
          routingNumber: '026009593',
          accountNumber,
          routingLast4: '9593',
          accountLast4: accountNumber.slice(-4),
          accountType: 'checking',
          bankName: null,
          source: 'form',
          at,
        },
        2,
      );
    await spec
      .when([created(4), v2(4, '1234'), created(5), v2(5, '12-345'), created(6), v2(6, '700000123')])
      .then(async (then) => {
        expect(await rowOf(then, 4)).toMatchObject({ routing_last4: '9593', account_last4: '' });
        expect((await rowOf(then, 5)).account_last4).toBe('5');
        expect((await rowOf(then, 6)).account_last4).toBe('0123');
      });
  });

  it('refuses a still-sealed event to a reader that did not say it reads none of its personal fields', () => {
    expect(() => decodeEvent(sealedBanking(3))).toThrow(/came sealed/);
    expect(() => decodeEvent({ ...sealedBanking(3), schemaVersion: 1 }, { sealed: 'absent' })).toThrow(
      /came sealed/,
    );
    expect(() => decodeEvent({ ...sealedBanking(3), schemaVersion: 2 }, { sealed: 'absent' })).toThrow(
      /came sealed/,
    );
    expect(decodeEvent(sealedBanking(3), { sealed: 'absent' }).data).toMatchObject({
      vendorId: 3,
      accountLast4: '6789',
    });
  });
});

// Vendors read model: bank details land as the tail a masked read shows, from events the projector
// need not open (version 3 carries it in plain) and from version 1 and 2 events, which come opened.
import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../services/modules/index.js';
import { decodeEvent } from '../../schema/shared/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { type VendorReadTables, vendorsProjection } from './vendors.js';

let tdb: TestDatabase;
let db: Kysely<VendorReadTables>;
const at = '2026-03-01T10:00:00.000Z';
let pos = 0;
const stored = (type: string, data: Record<string, unknown>, schemaVersion: number): StoredEvent => {
  pos++;
  return {
    id: randomUUID(),
    type,
    schemaVersion,
    streamId: `vendor-1-${data.vendorId}`,
    streamVersion: pos,
    position: String(pos).padStart(10, '0'),
    data,
    metadata: {},
    createdAt: new Date(at),
  };
};
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

beforeAll(async () => {
  tdb = await createTestDatabase('vendors_projection');
  db = new Kysely({ dialect: new PostgresDialect({ pool: tdb.pool }) });
  await vendorsProjection.setup(db, 'public');
});
afterAll(async () => {
  await tdb.drop();
});

const apply = (events: StoredEvent[]) =>
  db.transaction().execute(async (trx) => {
    const ctx = { schema: 'public', notify: () => {}, memory: { rows: new Map(), complete: false } };
    await vendorsProjection.applyBatch!(trx, events, ctx);
  });
const rowOf = (id: number) =>
  db.selectFrom('vendors').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('vendors projection', () => {
  it('asks for the personal fields of every event but a version 3 bank-details update', () => {
    expect(vendorsProjection.readsPersonal?.(sealedBanking(1))).toBe(false);
    expect(vendorsProjection.readsPersonal?.({ ...sealedBanking(1), schemaVersion: 1 })).toBe(true);
    expect(vendorsProjection.readsPersonal?.({ ...sealedBanking(1), schemaVersion: 2 })).toBe(true);
    expect(vendorsProjection.readsPersonal?.(created(1))).toBe(true);
  });

  it('keeps the last four digits of a bank-details update it got still sealed', async () => {
    await apply([created(1), sealedBanking(1)]);
    expect(await rowOf(1)).toMatchObject({
      has_banking: true,
      routing_last4: '0021',
      account_last4: '6789',
      account_type: 'savings',
      bank_name: 'Chase',
    });
  });

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
    await apply([created(2), v1]);
    expect(await rowOf(2)).toMatchObject({ routing_last4: '9593', account_last4: '1234' });
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
    await apply([created(4), v2(4, '1234'), created(5), v2(5, '12-345'), created(6), v2(6, '700000123')]);
    expect(await rowOf(4)).toMatchObject({ routing_last4: '9593', account_last4: '' });
    expect((await rowOf(5)).account_last4).toBe('5');
    expect((await rowOf(6)).account_last4).toBe('0123');
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

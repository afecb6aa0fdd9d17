// Bank detail changes read model: a batch (a CSV import's thousands of held changes in a row, mixed
// with approvals, replacements, freezes, control-off changes and a forgotten vendor) ends exactly as
// applying its events one by one, and a run of new changes goes as one statement.
import { expect, it } from 'vitest';
import '../../services/modules/index.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { nextEventAt, projectionSpec, storedEvent } from '../../test/support/projection-spec.js';
import { bankingChangesProjection } from './banking-changes.js';

// Every run also checks that applyBatch ends as apply one by one, rows and notices alike.
const spec = projectionSpec(bankingChangesProjection);
const stored = (type: string, vendorId: number, data: Record<string, unknown>, schemaVersion = 1) =>
  storedEvent(type, { vendorId, ...data }, { streamId: `vendor-2-${vendorId}`, userId: 4, schemaVersion });
// As the log holds them: the numbers sealed, the tails in plain.
const pii = (vendorId: number) => ({
  k: `vendor-${vendorId}`,
  iv: 'AAAAAAAAAAAAAAAA',
  ct: 'c2VhbGVk',
  f: ['routingNumber', 'accountNumber'],
});
const requested = (vendorId: number, changeId: string, tail: string, replaces: string | null = null) =>
  stored('VendorBankingChangeRequested', vendorId, {
    changeId,
    pii: pii(vendorId),
    accountType: 'checking',
    bankName: null,
    routingLast4: '0021',
    accountLast4: tail,
    previous:
      tail === '0001' ? null : { routingLast4: '0015', accountLast4: '1004', accountType: 'checking' },
    source: 'csv',
    byUserId: 4,
    replaces,
    at: nextEventAt(),
  });
const decided = (type: string, vendorId: number, changeId: string, byUserId: number | null) =>
  stored(type, vendorId, { changeId, byUserId, reason: 'Called back', at: nextEventAt() });
const live = (vendorId: number, changeId: string, kind: 'control-off' | 'second-person') =>
  stored(
    'VendorBankingUpdated',
    vendorId,
    {
      pii: pii(vendorId),
      routingLast4: '0021',
      accountLast4: '7777',
      accountType: 'savings',
      bankName: 'Chase',
      source: 'batch',
      changeId,
      verifiedBy: kind === 'second-person' ? { kind, byUserId: 5 } : { kind },
      at: nextEventAt(),
    },
    3,
  );

// 200 held changes of a CSV import, then each other kind of event, some on rows of the same batch.
const events: StoredEvent[] = [
  ...Array.from({ length: 200 }, (_, i) => requested(100 + i, `csv-${i}`, String(1000 + i))),
  decided('VendorBankingChangeApproved', 100, 'csv-0', 5),
  live(100, 'csv-0', 'second-person'),
  decided('VendorBankingChangeRejected', 101, 'csv-1', 5),
  requested(102, 'csv-2b', '2222', 'csv-2'),
  stored('VendorBankingChangeFrozen', 103, { changeId: 'csv-3', via: 'contact-link', at: nextEventAt() }),
  live(104, 'off-1', 'control-off'),
  requested(105, 'first-1', '0001'),
  stored('VendorForgotten', 106, { subject: 'vendor-106', at: nextEventAt() }),
  requested(107, 'csv-7b', '7070'),
  live(108, 'off-2', 'control-off'),
];

it('applies a batch exactly as it applies the events one by one, with the same notices', () =>
  // Three batches: the first 150 held changes, the other 50 with the first three kinds of event, the rest.
  spec.when(events, { batchCuts: [150, 203] }).then(async ({ read }) => {
    const rows = await read('vendor_banking_changes', { orderBy: 'change_id' });
    // What the events say, not only that both paths agree.
    const byId = new Map(rows.map((r) => [r.change_id, r]));
    // 200 held, less vendor 106's (forgotten), and csv-2b, off-1, first-1, csv-7b, off-2.
    expect(rows).toHaveLength(200 - 1 + 5);
    expect(byId.get('csv-0')).toMatchObject({
      status: 'approved',
      decided_by: 5,
      verified_by: 'second-person',
    });
    expect(byId.get('csv-1')).toMatchObject({ status: 'rejected', decided_by: 5 });
    expect(byId.get('csv-2')).toMatchObject({ status: 'rejected', reason: 'Replaced by a newer change' });
    expect(byId.get('csv-2b')).toMatchObject({ status: 'pending', account_last4: '2222' });
    expect(byId.get('csv-3')?.status).toBe('frozen');
    expect(byId.get('off-1')).toMatchObject({ status: 'live', verified_by: 'control-off', requested_by: 4 });
    expect(byId.get('first-1')).toMatchObject({ status: 'pending', prev_account_last4: null });
    expect(byId.has('csv-6')).toBe(false);
    expect(byId.get('csv-150')).toMatchObject({ status: 'pending', account_last4: '1150', source: 'csv' });
  }));

it('writes a run of new changes as one statement', async () => {
  const db = spec.db;
  await db.schema.createSchema('counted').ifNotExists().execute();
  await bankingChangesProjection.setup(db, 'counted');
  const run = Array.from({ length: 50 }, (_, i) => requested(300 + i, `run-${i}`, String(3000 + i)));
  let statements = 0;
  await db.transaction().execute(async (trx) => {
    const counting = new Proxy(trx, {
      get(target, key, receiver) {
        if (key === 'executeQuery')
          return (q: Parameters<typeof trx.executeQuery>[0]) => {
            statements++;
            return target.executeQuery(q);
          };
        return Reflect.get(target, key, receiver);
      },
    });
    await bankingChangesProjection.applyBatch?.(counting, run, { schema: 'counted', notify: () => {} });
  });
  expect(statements).toBe(1);
  expect(
    await db.withSchema('counted').selectFrom('vendor_banking_changes').selectAll().execute(),
  ).toHaveLength(50);
});

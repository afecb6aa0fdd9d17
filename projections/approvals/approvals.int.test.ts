// Approvals read model: events in, rows out (amounts, counts, the second-approval marker, deleted
// rows kept but flagged), running totals equal to the rows themselves, no vendor contact or
// recipient in any table, and a replay over the rows it wrote changes nothing.
import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalEvent, BillSnapshot } from '../../schema/approvals/events.js';
import { schemaVersionOf } from '../../schema/shared/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { billSnapshot } from '../../test/support/bills.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import type { ChangeNotice } from '../projection.js';
import type { ApprovalReadTables } from './approval-policies.js';
import { approvalsProjection } from './approvals.js';

let tdb: TestDatabase;
let db: Kysely<ApprovalReadTables>;
const t0 = '2026-11-01T10:00:00.000Z';
const t1 = '2026-11-02T10:00:00.000Z';
let pos = 0;
const stored = (event: ApprovalEvent): StoredEvent => {
  pos++;
  return {
    id: randomUUID(),
    type: event.type,
    schemaVersion: schemaVersionOf(event.type),
    streamId: `approval-${event.data.approvalId}`,
    streamVersion: pos,
    position: String(pos).padStart(10, '0'),
    data: event.data,
    metadata: {},
    createdAt: new Date(t1),
  };
};
const bill = (id: string, amount: number) =>
  billSnapshot(id, amount, { TxnDate: null, DueDate: null, VendorInfo: { CompanyName: 'Acme Paper LLC' } });
const created = (
  approvalId: string,
  bills: BillSnapshot[],
  priority: 'HIGH' | 'LOW' = 'HIGH',
): ApprovalEvent => ({
  type: 'ApprovalCreated',
  data: {
    approvalId,
    companyId: 3,
    priority,
    managerId: null,
    createdBy: 7,
    bills,
    vendorContacts: [{ qbVendorId: '55', email: 'ap@acme.example', phone: '555-0100' }],
    recipients: ['cfo@client.example'],
    confirmedDuplicates: [],
    expiresAt: t1,
    at: t0,
  },
});
const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const B = 'bbbbbbbb-0000-4000-8000-000000000002';
const C = 'cccccccc-0000-4000-8000-000000000003';
const history = [
  stored(created(A, [bill('10', 100.25), bill('11', 50)])),
  stored(created(B, [bill('20', 10)], 'LOW')),
  stored(created(C, [bill('30', 999)])),
  stored({
    type: 'ApprovalFirstApproved',
    data: {
      approvalId: A,
      companyId: 3,
      approvedBillIds: ['10'],
      byUserId: 8,
      amount: 100.25,
      threshold: 100,
      at: t1,
    },
  }),
  stored({ type: 'ApprovalUpdated', data: { approvalId: B, companyId: 3, priority: 'URGENT', at: t1 } }),
  stored({
    type: 'ApprovalApproved',
    data: { approvalId: A, companyId: 3, approvedBillIds: ['10'], byUserId: 9, firstApprovedBy: 8, at: t1 },
  }),
  stored({
    type: 'ApprovalRejected',
    data: { approvalId: B, companyId: 3, reason: 'No', byUserId: 9, at: t1 },
  }),
  stored({ type: 'ApprovalDeleted', data: { approvalId: C, companyId: 3, byUserId: 9, at: t1 } }),
];

beforeAll(async () => {
  tdb = await createTestDatabase('approvals');
  db = new Kysely({ dialect: new PostgresDialect({ pool: tdb.pool }) });
  await approvalsProjection.setup(db, 'public');
});
afterAll(async () => {
  await tdb.drop();
});

const totals = () =>
  db.selectFrom('approval_counts').selectAll().where('n', '<>', 0).orderBy(['status', 'priority']).execute();

describe('approvals projection', () => {
  it('turns the history into the expected rows and totals, and notifies each change', async () => {
    const notices: ChangeNotice[] = [];
    const apply = async (events: StoredEvent[], notify: (n: ChangeNotice) => void) =>
      db.transaction().execute(async (trx) => {
        for (const e of events) await approvalsProjection.apply(trx, e, { schema: 'public', notify });
      });
    // The marker shows between the two approvals.
    await apply(history.slice(0, 4), (n) => notices.push(n));
    expect(
      await db
        .selectFrom('approvals')
        .select(['status', 'awaiting_second_approval', 'first_approved_by'])
        .where('id', '=', A)
        .executeTakeFirst(),
    ).toEqual({ status: 'PENDING', awaiting_second_approval: true, first_approved_by: 8 });
    await apply(history.slice(4), (n) => notices.push(n));
    const rows = await db.selectFrom('approvals').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.id, r.status, r.priority, r.deleted])).toEqual([
      [A, 'APPROVED', 'HIGH', false],
      [B, 'REJECTED', 'URGENT', false],
      [C, 'PENDING', 'HIGH', true],
    ]);
    expect(rows[0]).toMatchObject({
      bill_count: 2,
      approved_bill_count: 1,
      total_amount: '150.25',
      approved_amount: '100.25',
      approved_by: 9,
      first_approved_by: 8,
      awaiting_second_approval: false,
      approval_date: new Date(t1),
    });
    expect(rows[1]).toMatchObject({ rejection_reason: 'No', rejected_by: 9, rejection_date: new Date(t1) });
    // The totals hold the approvals not deleted, by status and priority.
    expect(await totals()).toEqual([
      {
        company_id: 3,
        status: 'APPROVED',
        priority: 'HIGH',
        n: 1,
        bills: 2,
        approved_bills: 1,
        amount: '150.25',
        approved_amount: '100.25',
      },
      {
        company_id: 3,
        status: 'REJECTED',
        priority: 'URGENT',
        n: 1,
        bills: 1,
        approved_bills: 0,
        amount: '10.00',
        approved_amount: '0.00',
      },
    ]);
    expect(notices.map((n) => `${n.id.slice(0, 1)}:${n.data?.type}:${n.data?.status ?? ''}`)).toEqual([
      'a:ApprovalCreated:PENDING',
      'b:ApprovalCreated:PENDING',
      'c:ApprovalCreated:PENDING',
      'a:ApprovalFirstApproved:',
      'b:ApprovalUpdated:',
      'a:ApprovalApproved:APPROVED',
      'b:ApprovalRejected:REJECTED',
      'c:ApprovalDeleted:',
    ]);
    // Sealed in the log, absent here: no vendor contact or recipient in any of its tables.
    const dump = JSON.stringify(await sql`SELECT * FROM approvals`.execute(db));
    for (const plain of ['ap@acme.example', '555-0100', 'cfo@client.example'])
      expect(dump).not.toContain(plain);
    // A batch replayed after a crash (before its checkpoint moved) leaves the same rows and totals.
    const before = await totals();
    await apply(history, () => {});
    expect(await db.selectFrom('approvals').selectAll().orderBy('id').execute()).toEqual(rows);
    expect(await totals()).toEqual(before);
    // The batch path gives the same rows and totals as one event at a time.
    await sql`TRUNCATE approvals, approval_counts`.execute(db);
    await db.transaction().execute(async (trx) => {
      await approvalsProjection.applyBatch!(trx, history, { schema: 'public', notify: () => {} });
    });
    expect(await db.selectFrom('approvals').selectAll().orderBy('id').execute()).toEqual(rows);
    expect(await totals()).toEqual(before);
  });
});

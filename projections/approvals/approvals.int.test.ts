// Approvals read model: events in, rows out (amounts, counts, the second-approval marker, deleted
// rows kept but flagged), running totals equal to the rows themselves, no vendor contact or
// recipient in any table, and a replay over the rows it wrote changes nothing.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { ApprovalEvent, BillSnapshot } from '../../schema/approvals/events.js';
import { billSnapshot } from '../../test/support/bills.js';
import { projectionSpec, storedEvent, type Then } from '../../test/support/projection-spec.js';
import type { ApprovalReadTables } from './approval-policies.js';
import { approvalsProjection } from './approvals.js';

// Every run also holds the batch path to the one-by-one path: rows, totals and notices. A total
// brought back to zero says nothing: one event at a time leaves it, a batch nets it out unwritten.
const spec = projectionSpec(approvalsProjection, {
  rowsThatCount: { approval_counts: (row) => row.n !== 0 },
});
const t0 = '2026-11-01T10:00:00.000Z';
const t1 = '2026-11-02T10:00:00.000Z';
const stored = (event: ApprovalEvent) =>
  storedEvent(event, { streamId: `approval-${event.data.approvalId}`, at: t1 });
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

const totals = ({ db, schema }: Then<ApprovalReadTables>) =>
  db
    .withSchema(schema)
    .selectFrom('approval_counts')
    .selectAll()
    .where('n', '<>', 0)
    .orderBy('status')
    .orderBy('priority')
    .execute();

describe('approvals projection', () => {
  it('turns the history into the expected rows and totals, and notifies each change', async () => {
    // The marker shows between the two approvals.
    await spec
      .when(history.slice(0, 4))
      .then(async ({ db, schema }) =>
        expect(
          await db
            .withSchema(schema)
            .selectFrom('approvals')
            .select(['status', 'awaiting_second_approval', 'first_approved_by'])
            .where('id', '=', A)
            .executeTakeFirst(),
        ).toEqual({ status: 'PENDING', awaiting_second_approval: true, first_approved_by: 8 }),
      );
    await spec.when(history).then(async (then) => {
      const { read, notices, db, schema } = then;
      const rows = await read('approvals', { orderBy: 'id' });
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
      const before = await totals(then);
      expect(before).toEqual([
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
      const dump = JSON.stringify(await sql`SELECT * FROM ${sql.id(schema, 'approvals')}`.execute(db));
      for (const plain of ['ap@acme.example', '555-0100', 'cfo@client.example'])
        expect(dump).not.toContain(plain);
      // A batch replayed after a crash (before its checkpoint moved) leaves the same rows and totals.
      await spec
        .given(history)
        .when(history)
        .then(async (replayed) => {
          expect(await replayed.read('approvals', { orderBy: 'id' })).toEqual(rows);
          expect(await totals(replayed)).toEqual(before);
        });
    });
  });
});

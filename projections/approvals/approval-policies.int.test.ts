// Approval policies read model: the last policy of each company wins, a threshold turned off is
// null, and a replay over the rows it wrote changes nothing.
import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalPolicyEvent } from '../../schema/approvals/events.js';
import { schemaVersionOf } from '../../schema/shared/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { type ApprovalReadTables, approvalPoliciesProjection } from './approval-policies.js';

let tdb: TestDatabase;
let db: Kysely<ApprovalReadTables>;
let pos = 0;
const t0 = '2026-11-01T10:00:00.000Z';
const t1 = '2026-11-02T10:00:00.000Z';
const set = (
  companyId: number,
  creatorMayNotApprove: boolean,
  secondApprovalThreshold: number | null,
  at: string,
  assignedStaffOnly?: boolean,
): StoredEvent => {
  const event: ApprovalPolicyEvent = {
    type: 'ApprovalPolicySet',
    data: {
      companyId,
      creatorMayNotApprove,
      secondApprovalThreshold,
      byUserId: 1,
      at,
      ...(assignedStaffOnly === undefined ? {} : { assignedStaffOnly }),
    },
  };
  pos++;
  return {
    id: randomUUID(),
    type: event.type,
    schemaVersion: schemaVersionOf(event.type),
    streamId: `approvalpolicy-${companyId}`,
    streamVersion: pos,
    position: String(pos).padStart(10, '0'),
    data: event.data,
    metadata: {},
    createdAt: new Date(at),
  };
};

beforeAll(async () => {
  tdb = await createTestDatabase('approval_policies');
  db = new Kysely({ dialect: new PostgresDialect({ pool: tdb.pool }) });
  await approvalPoliciesProjection.setup(db, 'public');
});
afterAll(async () => {
  await tdb.drop();
});

describe('approval policies projection', () => {
  it('keeps each company’s last policy; a replay leaves the same rows', async () => {
    // Company 4's event predates the staff scope (no assignedStaffOnly): assigned staff only.
    const history = [set(3, true, 500, t0), set(4, false, 100.5, t0), set(3, false, null, t1, false)];
    const apply = () =>
      db.transaction().execute(async (trx) => {
        for (const e of history)
          await approvalPoliciesProjection.apply(trx, e, { schema: 'public', notify: () => {} });
      });
    await apply();
    const rows = await db.selectFrom('approval_policies').selectAll().orderBy('company_id').execute();
    expect(rows).toEqual([
      {
        company_id: 3,
        creator_may_not_approve: false,
        second_approval_threshold: null,
        assigned_staff_only: false,
        updated_at: new Date(t1),
      },
      {
        company_id: 4,
        creator_may_not_approve: false,
        second_approval_threshold: '100.50',
        assigned_staff_only: true,
        updated_at: new Date(t0),
      },
    ]);
    await apply();
    expect(await db.selectFrom('approval_policies').selectAll().orderBy('company_id').execute()).toEqual(
      rows,
    );
  });
});

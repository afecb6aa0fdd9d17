// The companies' approval policies as a read model: one row per company
// that ever set one; a company without a row has the default (DEFAULT_POLICY). The staff scope
// (services/app/staff-scope.ts) reads assigned_staff_only here. The decider judges from the policy's own stream; this table only lets the
// approval reads say, per viewer, whether they may approve and why not, without a stream read per
// company on every list page (the list's cache keys on this checkpoint too, so a change shows at once).
import { sql } from 'kysely';
import { approvalPolicyEvents } from '../../schema/approvals/events.js';
import { eventDecoder } from '../../services/shared/decider.js';
import type { Projection } from '../projection.js';
import type { ApprovalReadTables } from './tables.js';

export type { ApprovalPoliciesTable, ApprovalPoliciesTables, ApprovalReadTables } from './tables.js';

const decodeApprovalPolicyEvent = eventDecoder(approvalPolicyEvents);

export const approvalPoliciesProjection: Projection<ApprovalReadTables> = {
  name: 'approval_policies',
  version: 2,
  tables: ['approval_policies'],
  handles: ['ApprovalPolicySet'],
  async setup(db, schema) {
    await sql`CREATE TABLE IF NOT EXISTS ${sql.id(schema, 'approval_policies')} (
      company_id integer PRIMARY KEY,
      creator_may_not_approve boolean NOT NULL,
      second_approval_threshold numeric(16,2),
      assigned_staff_only boolean NOT NULL DEFAULT true,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  },
  async apply(trx, stored, ctx) {
    const event = decodeApprovalPolicyEvent(stored);
    const d = event.data;
    const row = {
      company_id: d.companyId,
      creator_may_not_approve: d.creatorMayNotApprove,
      second_approval_threshold:
        d.secondApprovalThreshold === null ? null : d.secondApprovalThreshold.toFixed(2),
      assigned_staff_only: d.assignedStaffOnly ?? true,
      updated_at: new Date(d.at),
    };
    // Each event carries the whole policy: the last one wins, and a replay writes the same row.
    await trx
      .withSchema(ctx.schema)
      .insertInto('approval_policies')
      .values(row)
      .onConflict((oc) =>
        oc.column('company_id').doUpdateSet({
          creator_may_not_approve: row.creator_may_not_approve,
          second_approval_threshold: row.second_approval_threshold,
          assigned_staff_only: row.assigned_staff_only,
          updated_at: row.updated_at,
        }),
      )
      .execute();
    // Open approval screens of the company re-read who may approve (approvalPolicyChanged).
    ctx.notify({ topic: 'approval-policy', id: String(d.companyId), data: { companyId: d.companyId } });
  },
};

// Activity read model: companies', approvals' and bank detail controls' events make lines too, each
// with its company and kind, and a forgotten person leaves them as on a person's line.
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import type { ApprovalEvent } from '../../schema/approvals/events.js';
import type { CompanyEvent } from '../../schema/companies/events.js';
import type { UserEvent } from '../../schema/users/events.js';
import type { BankingControlEvent } from '../../schema/vendors/events.js';
import { billSnapshot } from '../../test/support/bills.js';
import { projectionSpec, storedEvent } from '../../test/support/projection-spec.js';
import { activityProjection } from './activity.js';

// Every run also checks that applyBatch ends as apply one by one, in every table, notices alike.
const spec = projectionSpec(activityProjection);
const at = '2026-11-25T10:00:00.000Z';
const ev = (event: UserEvent | CompanyEvent | ApprovalEvent | BankingControlEvent, actor: number | null) =>
  storedEvent(event, { streamId: 'x', userId: actor });
const bill = billSnapshot;
const person = (userId: number, firstName: string, lastName: string): UserEvent => ({
  type: 'UserRegistered',
  data: {
    userId,
    email: `${firstName.toLowerCase()}@x.test`,
    firstName,
    lastName,
    role: 'MODERATOR',
    isActive: true,
    credentialId: 'h',
    registeredAt: at,
  },
});
const company = (companyId: number, name: string): CompanyEvent => ({
  type: 'CompanyCreated',
  data: {
    companyId,
    name,
    email: 'office@acme.test',
    phone: '555-0100',
    website: null,
    address: null,
    description: null,
    industry: null,
    status: 'ACTIVE',
    managerId: null,
    processorId: null,
    approverId: null,
    accountantId: null,
    qbPaymentAccountReference: null,
    createdAt: at,
  },
});

// Company 3 has the id of user 3, whom the log forgets: the company's name stays on its lines.
const events = [
  ev(person(1, 'Ada', 'Admin'), null),
  ev(person(3, 'Mo', 'Derator'), 1),
  ev(company(3, 'Acme Ltd'), 1),
  ev({ type: 'CompanyUpdated', data: { companyId: 3, name: 'Acme Holdings', updatedAt: at } }, 1),
  ev({ type: 'CompanyUpdated', data: { companyId: 3, website: 'acme.test', updatedAt: at } }, 1),
  ev(
    {
      type: 'CompanyQbConnected',
      data: { companyId: 3, realmId: 'r1', accessExpiresAt: at, refreshExpiresAt: null, at },
    },
    1,
  ),
  ev(
    {
      type: 'ApprovalCreated',
      data: {
        approvalId: 'a1',
        companyId: 3,
        priority: 'HIGH',
        managerId: null,
        createdBy: 3,
        bills: [bill('b1', 1000), bill('b2', 3693.45)],
        vendorContacts: [{ qbVendorId: '55', email: 'ap@paper.test', phone: null }],
        recipients: ['boss@acme.test'],
        confirmedDuplicates: [],
        expiresAt: at,
        at,
      },
    },
    3,
  ),
  ev(
    {
      type: 'ApprovalFirstApproved',
      data: {
        approvalId: 'a1',
        companyId: 3,
        approvedBillIds: ['b1'],
        byUserId: 3,
        amount: 4693.45,
        threshold: 1000,
        at,
      },
    },
    3,
  ),
  ev(
    {
      type: 'ApprovalApproved',
      data: { approvalId: 'a1', companyId: 3, approvedBillIds: ['b1'], byUserId: 1, firstApprovedBy: 3, at },
    },
    1,
  ),
  ev(
    {
      type: 'ApprovalRejected',
      data: { approvalId: 'a2', companyId: 3, reason: 'Call Ann at 555', byUserId: 1, at },
    },
    1,
  ),
  ev({ type: 'ApprovalExpired', data: { approvalId: 'a3', companyId: 3, at } }, null),
  ev({ type: 'ApprovalDeleted', data: { approvalId: 'a4', companyId: 3, byUserId: 1, at } }, 1),
  ev({ type: 'ApprovalUpdated', data: { approvalId: 'a4', companyId: 3, priority: 'LOW', at } }, 1),
  ev(
    {
      type: 'CompanyQbConnectionLost',
      data: { companyId: 3, realmId: 'r1', status: 'disconnected', reason: 'revoked', at },
    },
    null,
  ),
  ev(
    {
      type: 'BankingChangeControlSet',
      data: { companyId: 3, enabled: false, flagDays: 30, byUserId: 1, reason: 'Vendor called 555', at },
    },
    1,
  ),
  ev(
    {
      type: 'BankingChangeControlSet',
      data: { companyId: 3, enabled: true, flagDays: 14, byUserId: 1, reason: '', at },
    },
    1,
  ),
  ev({ type: 'CompanyDeactivated', data: { companyId: 3, at } }, 1),
  ev({ type: 'UserForgotten', data: { userId: 3, subject: 'user-3', at } }, 1),
];

// The spec also holds applyBatch to apply one by one (every table's rows, the notices), here in
// three batches, cut within the company's and the approval's events.
it('describes companies and their approvals in plain words, with the company and the kind', () =>
  spec.when(events, { batchCuts: [3, 9] }).then(async ({ read, notices, db, schema }) => {
    const rows = await read('activity', {
      select: ['description', 'type', 'kind', 'company_id', 'subject_name', 'actor_name'],
      orderBy: 'position desc',
    });
    const lines = rows.filter((r) => r.company_id !== null);
    expect(lines.map((r) => r.description)).toEqual([
      'Ada Admin deactivated company Acme Holdings',
      'Ada Admin set the second look at bank detail changes for Acme Holdings: on, changes flagged for 14 days',
      'Ada Admin turned off the second look at bank detail changes for Acme Holdings: a changed account is paid without one',
      'Acme Holdings was disconnected from QuickBooks',
      'Ada Admin deleted an approval for Acme Holdings',
      'An approval for Acme Holdings expired',
      'Ada Admin rejected an approval for Acme Holdings',
      'Ada Admin gave the second approval for Acme Holdings: approved',
      '#3 (erased) gave the first of two approvals for Acme Holdings ($4,693.45); a second approver is needed',
      '#3 (erased) created an approval for Acme Holdings (2 bills, $4,693.45)',
      'Ada Admin connected Acme Holdings to QuickBooks',
      'Ada Admin created company Acme Ltd',
    ]);
    expect(lines.every((r) => r.company_id === 3)).toBe(true);
    expect(lines.map((r) => r.kind)).toEqual([
      'company',
      'company',
      'company',
      'quickbooks',
      'approval',
      'approval',
      'approval',
      'approval',
      'approval',
      'approval',
      'quickbooks',
      'company',
    ]);
    // People's lines have no company and the kind 'user'.
    expect(rows.filter((r) => r.company_id === null).every((r) => r.kind === 'user')).toBe(true);
    // Nothing of the sealed or free-text fields: no e-mail, no reason.
    expect(JSON.stringify(rows)).not.toMatch(/@|555/);
    // Each line's notice names its company and kind (the live feed's scope filter).
    const forLines = notices.filter((n) => n.data?.companyId === 3);
    expect(forLines).toHaveLength(12);
    expect(forLines[0]?.data).toEqual({ companyId: 3, kind: 'company' });
    const names = await db.withSchema(schema).selectFrom('activity_companies').selectAll().execute();
    expect(names).toEqual([{ company_id: 3, name: 'Acme Holdings' }]);
  }));

it('opens no personal field of a company or an approval event', () => {
  for (const e of events) expect(activityProjection.readsPersonal?.(e)).toBe(e.type.startsWith('User'));
});

it("sets up over a table of the previous version (a start before the rebuild), its lines all people's", async () => {
  const db = spec.db;
  await db.schema.createSchema('older').ifNotExists().execute();
  await sql`CREATE TABLE older.activity (
    id uuid PRIMARY KEY, position text NOT NULL, type text NOT NULL, description text NOT NULL,
    template text NOT NULL, actor_name text, subject_name text, actor_id integer,
    subject_type text NOT NULL, subject_id text NOT NULL, occurred_at timestamptz NOT NULL)`.execute(db);
  await sql`INSERT INTO older.activity VALUES ('00000000-0000-4000-8000-000000000001', '1', 'UserSignedIn',
    'Ada signed in', '{subject} signed in', null, 'Ada', 1, 'user', '1', now())`.execute(db);
  await activityProjection.setup(db, 'older');
  await activityProjection.setup(db, 'older');
  const rows = await db.withSchema('older').selectFrom('activity').select(['kind', 'company_id']).execute();
  expect(rows).toEqual([{ kind: 'user', company_id: null }]);
});

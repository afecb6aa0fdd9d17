// Activity read model: companies', approvals' and bank detail controls' events make lines too, each
// with its company and kind, and a forgotten person leaves them as on a person's line.
import { randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ApprovalEvent } from '../../schema/approvals/events.js';
import type { CompanyEvent } from '../../schema/companies/events.js';
import { schemaVersionOf } from '../../schema/shared/events.js';
import type { UserEvent } from '../../schema/users/events.js';
import type { BankingControlEvent } from '../../schema/vendors/events.js';
import type { StoredEvent } from '../../services/eventstore/port.js';
import { billSnapshot } from '../../test/support/bills.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import type { ChangeNotice } from '../projection.js';
import { type ActivityTables, activityProjection } from './activity.js';

let tdb: TestDatabase;
let db: Kysely<ActivityTables>;
let pos = 0;
const at = '2026-11-25T10:00:00.000Z';
const ev = (
  event: UserEvent | CompanyEvent | ApprovalEvent | BankingControlEvent,
  actor: number | null,
): StoredEvent => ({
  id: randomUUID(),
  type: event.type,
  schemaVersion: schemaVersionOf(event.type),
  streamId: 'x',
  streamVersion: 1,
  position: String(++pos).padStart(10, '0'),
  data: event.data,
  metadata: { userId: actor === null ? null : String(actor) },
  createdAt: new Date(Date.parse(at) + pos * 1000),
});
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

beforeAll(async () => {
  tdb = await createTestDatabase('activity_lines');
  db = new Kysely({ dialect: new PostgresDialect({ pool: tdb.pool }) });
  await activityProjection.setup(db, 'public');
  for (const schema of ['one_by_one', 'batched']) {
    await db.schema.createSchema(schema).ifNotExists().execute();
    await activityProjection.setup(db, schema);
  }
});
afterAll(async () => {
  await tdb.drop();
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

const read = async (schema: string) =>
  db
    .withSchema(schema)
    .selectFrom('activity')
    .select(['description', 'type', 'kind', 'company_id', 'subject_name', 'actor_name'])
    .orderBy('position', 'desc')
    .execute();

it('describes companies and their approvals in plain words, with the company and the kind', async () => {
  const notices: ChangeNotice[] = [];
  await db.transaction().execute(async (trx) => {
    for (const e of events)
      await activityProjection.apply(trx, e, { schema: 'one_by_one', notify: (n) => notices.push(n) });
  });
  const rows = await read('one_by_one');
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
  const names = await db.withSchema('one_by_one').selectFrom('activity_companies').selectAll().execute();
  expect(names).toEqual([{ company_id: 3, name: 'Acme Holdings' }]);
});

it('applies a batch exactly as it applies the events one by one', async () => {
  for (const part of [events.slice(0, 3), events.slice(3, 9), events.slice(9)])
    await db.transaction().execute(async (trx) => {
      await activityProjection.applyBatch?.(trx, part, { schema: 'batched', notify: () => {} });
    });
  expect(await read('batched')).toEqual(await read('one_by_one'));
});

it('opens no personal field of a company or an approval event', () => {
  for (const e of events) expect(activityProjection.readsPersonal?.(e)).toBe(e.type.startsWith('User'));
});

it("sets up over a table of the previous version (a start before the rebuild), its lines all people's", async () => {
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

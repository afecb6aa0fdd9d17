// An approval's history on the whole product (Postgres, Redis, the workers): driven through create,
// update, approve (the payments job asks for the file and fails it, named as the system job with its
// reason), a regenerated file, a download, an e-mail link's bank-upload confirmation, the payment and
// a bundle exported for an auditor; with the company's policy in force and changed, and a vendor's
// banking unmasked, on their own streams. REST and GraphQL show every step with its position, stream, actor, changes, reason and
// file; after the vendor and the company are forgotten the history still loads, the erased fields
// shown as erased.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BillSnapshot } from '../../schema/approvals/events.js';
import { schemaVersionOf } from '../../schema/shared/events.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { awaitProjections } from '../app/context.js';
import { type ApprovalCommand, approvalDecider, approvalStreamId } from './approval-decider.js';
import type { ApprovalHistoryEntry } from './history.js';
import { approvalPolicyDecider } from './policy-decider.js';

const A = '/api/bill-approval/approvals';
const RECIPIENT = 'hana.history@history-recipient.test';
let t: TestApp;
let admin = '';
let adminId = 0;
let companyId = 0;
const approvalId = randomUUID();
const now = () => new Date().toISOString();

/** Several commands as one append: no process manager sees a state between them. */
const batch = {
  ...approvalDecider,
  decide(commands: ApprovalCommand[], state: ReturnType<typeof approvalDecider.initialState>) {
    const out = [];
    for (const c of commands) {
      const events = approvalDecider.decide(c, state);
      for (const e of events) state = approvalDecider.evolve(state, e);
      out.push(...events);
    }
    return out;
  },
};
const run = async (commands: ApprovalCommand[], userId: string | null = String(adminId)) => {
  const r = await t.started.app.commands.handle(batch, approvalStreamId(approvalId), commands, { userId });
  if (r.position) await awaitProjections(t.started.app, r.position, ['approvals']);
  return r;
};
const setPolicy = (secondApprovalThreshold: number | null) =>
  t.started.app.commands.handle(
    approvalPolicyDecider,
    approvalPolicyDecider.streamId(companyId),
    {
      type: 'SetApprovalPolicy',
      companyId,
      byUserId: adminId,
      creatorMayNotApprove: false,
      secondApprovalThreshold,
      assignedStaffOnly: false,
      now: now(),
    },
    { userId: String(adminId) },
  );
/** A vendor's own event, as its stream would hold it (the vendor itself is not synced here). */
const onVendor = (type: 'VendorBankingUnmasked' | 'VendorForgotten', data: Record<string, unknown>) =>
  t.started.app.store.append(
    `vendor-${companyId}-56`,
    [
      {
        id: randomUUID(),
        type,
        data: { vendorId: 9056, at: now(), ...data },
        metadata: { userId: String(adminId) },
        schemaVersion: schemaVersionOf(type),
      },
    ],
    'any',
  );

const bill: BillSnapshot = {
  Id: 'h1',
  DocNumber: 'INV-H1',
  TxnDate: '2025-06-01',
  DueDate: '2025-06-30',
  TotalAmt: 1250.5,
  Balance: 1250.5,
  CurrencyRef: 'USD',
  VendorRef: { value: '56', name: 'Bob’s Burger Joint' },
  VendorInfo: { CompanyName: 'Bob’s Burger Joint' },
  VendorAddr: null,
  Line: [],
  AttachableId: null,
  InvoiceFileName: null,
};

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const types = async () =>
  (await t.started.app.store.readStream(approvalStreamId(approvalId))).events.map((e) => e.type);
const history = async (): Promise<ApprovalHistoryEntry[]> => {
  const r = await api(t.url, 'GET', `${A}/${approvalId}/history`, { token: admin });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
};
const one = (h: ApprovalHistoryEntry[], action: string) => {
  const found = h.find((x) => x.action === action);
  if (!found) throw new Error(`no step ${action} in ${h.map((x) => x.action).join(', ')}`);
  return found;
};

beforeAll(async () => {
  t = await startTestApp();
  const me = await signIn(t.url, t.admin.email, t.admin.password);
  admin = me.tokens.accessToken;
  adminId = me.user.id;
  const c = await api(t.url, 'POST', '/api/company/companies', {
    body: { name: 'History & Co' },
    token: admin,
  });
  companyId = c.body.data.id;

  await setPolicy(5000);
  await run([
    {
      type: 'CreateApproval',
      approvalId,
      companyId,
      priority: 'HIGH',
      managerId: null,
      byUserId: adminId,
      bills: [bill],
      vendorContacts: [{ qbVendorId: '56', email: 'bob@burger.test', phone: null }],
      recipients: [RECIPIENT],
      confirmedDuplicates: [],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      now: now(),
    },
  ]);
  await run([{ type: 'UpdateApproval', priority: 'LOW', now: now() }]);
  await onVendor('VendorBankingUnmasked', { byUserId: adminId });
  await setPolicy(null);
  await run([
    {
      type: 'ApproveApproval',
      approvedBillIds: ['h1'],
      byUserId: adminId,
      managerEmail: null,
      policy: { creatorMayNotApprove: false, secondApprovalThreshold: null },
      // No vendor of these bills is synced: none has banking to record.
      banking: [],
      now: now(),
    },
  ]);
  // The payments job asks for the file and fails it: the company has no NACHA settings.
  await until('the failed generation', async () => (await types()).includes('NachaGenerationFailed'));
  await run([
    { type: 'RequestNacha', reason: 'regenerate', byUserId: adminId, now: now() },
    {
      type: 'RecordNachaGenerated',
      version: 2,
      file: {
        fileId: 'file-history-v2',
        fileName: 'ACH_HISTORY_v2.txt',
        batchNumber: 2,
        fileIdModifier: 'A',
        effectiveDate: '2025-06-03',
        entryCount: 1,
        totalCreditCents: 125_050,
        totalDebitCents: 0,
        balanced: false,
        vendors: [],
        skippedBills: [],
      },
      now: now(),
    },
  ]);
  await run([{ type: 'RecordNachaDownload', fileId: 'file-history-v2', byUserId: adminId, now: now() }]);
  await run([
    {
      type: 'IssueLink',
      linkId: 'link-history-1',
      action: 'bank-uploaded',
      recipient: RECIPIENT,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      now: now(),
    },
  ]);
  await run(
    [
      {
        type: 'MarkBankUploaded',
        byUserId: null,
        link: { linkId: 'link-history-1', recipient: RECIPIENT, manager: null },
        now: now(),
      },
    ],
    null,
  );
  await run([{ type: 'MarkPaymentCompleted', byUserId: adminId, link: null, now: now() }]);
  // The payments job starts the QuickBooks payment run on its own.
  await until('the payment run', async () => (await types()).includes('QbPaymentSyncStarted'));
  // A bundle exported for an auditor (the audit tool appends it so).
  await t.started.app.store.append(
    approvalStreamId(approvalId),
    [
      {
        id: randomUUID(),
        type: 'ApprovalAuditExported',
        data: { approvalId, companyId, byUserId: adminId, at: now() },
        metadata: { userId: String(adminId) },
        schemaVersion: schemaVersionOf('ApprovalAuditExported'),
      },
    ],
    'any',
  );
}, 90_000);

afterAll(async () => {
  await t?.stop();
});

describe('approval history', () => {
  it('orders every step by log position, its own stream and those around it', async () => {
    const h = await history();
    const positions = h.map((x) => x.position);
    expect([...positions].sort()).toEqual(positions);
    expect(new Set(positions).size).toBe(positions.length);
    expect(h[0]).toMatchObject({
      action: 'Approval policy in force',
      stream: `approvalpolicy-${companyId}`,
      changes: expect.arrayContaining([{ field: 'secondApprovalThreshold', from: null, to: '$5,000.00' }]),
    });
    expect(h[1]).toMatchObject({ action: 'Created', stream: approvalStreamId(approvalId) });
    const around = h
      .filter((x) => x.stream !== approvalStreamId(approvalId))
      .map((x) => [x.stream, x.action]);
    expect(around).toEqual([
      [`approvalpolicy-${companyId}`, 'Approval policy in force'],
      [`vendor-${companyId}-56`, 'Vendor banking unmasked'],
      [`approvalpolicy-${companyId}`, 'Approval policy changed'],
    ]);
    expect(one(h, 'Vendor banking unmasked')).toMatchObject({
      actorKind: 'user',
      details: 'Bob’s Burger Joint: full bank numbers shown',
    });
  });

  it('names who acted, says what changed, the reason and the file', async () => {
    const h = await history();
    expect(one(h, 'Created')).toMatchObject({ actorKind: 'user', userId: adminId });
    expect(one(h, 'Updated').changes).toEqual([{ field: 'priority', from: 'High', to: 'Low' }]);
    expect(one(h, 'Approved').changes).toEqual([
      { field: 'status', from: 'Pending', to: 'Approved' },
      { field: 'approvedBills', from: null, to: 'h1' },
    ]);
    expect(one(h, 'NACHA file requested')).toMatchObject({
      actorKind: 'system',
      userId: null,
      userName: 'System (payments job)',
      reason: 'The approval was approved',
    });
    const failed = one(h, 'NACHA generation failed');
    expect(failed).toMatchObject({ actorKind: 'system', userName: 'System (payments job)' });
    expect(failed.reason).toMatch(/NACHA|settings|bank/i);
    expect(failed.changes).toContainEqual({
      field: 'nachaStatus',
      from: 'Generating',
      to: 'Needs attention',
    });
    expect(one(h, 'NACHA file regeneration requested')).toMatchObject({
      actorKind: 'user',
      reason: 'Regenerate asked for by staff',
    });
    const file = `${A}/${approvalId}/nacha-files/file-history-v2`;
    expect(one(h, 'NACHA file generated')).toMatchObject({ downloadUrl: file });
    expect(one(h, 'NACHA file generated').changes).toContainEqual({
      field: 'nachaFile',
      from: null,
      to: 'ACH_HISTORY_v2.txt (v2)',
    });
    expect(one(h, 'NACHA file downloaded')).toMatchObject({
      actorKind: 'user',
      downloadUrl: file,
      changes: [],
    });
    expect(one(h, 'Bank upload confirmed')).toMatchObject({
      actorKind: 'link-recipient',
      userName: `${RECIPIENT} (e-mail link)`,
      changes: expect.arrayContaining([{ field: 'status', from: 'NACHA Generated', to: 'Bank Uploaded' }]),
    });
    expect(one(h, 'Audit bundle exported')).toMatchObject({
      actorKind: 'user',
      userId: adminId,
      changes: [],
    });
    expect(one(h, 'QuickBooks payment sync started')).toMatchObject({
      actorKind: 'system',
      userName: 'System (payments job)',
    });
  });

  it('serves the same steps through GraphQL', async () => {
    const r = await gql(
      t.url,
      `query($id: String!) { approvalHistory(id: $id) { id position stream action actorKind userName reason downloadUrl changes { field from to } } }`,
      { id: approvalId },
      admin,
    );
    expect(r.errors).toBeUndefined();
    const rest = await history();
    const steps = r.data?.approvalHistory as Array<Record<string, unknown>>;
    expect(steps.map((s) => s.position)).toEqual(rest.map((s) => s.position));
    expect(steps.find((s) => s.action === 'Bank upload confirmed')).toMatchObject({
      actorKind: 'LINK_RECIPIENT',
    });
    expect(steps.find((s) => s.action === 'Updated')).toMatchObject({
      changes: [{ field: 'priority', from: 'High', to: 'Low' }],
    });
  });

  it('still loads after the vendor and the company are forgotten, erased fields shown erased', async () => {
    const before = await history();
    await onVendor('VendorForgotten', { subject: 'vendor-9056' });
    await t.started.app.subjectKeys.forget('vendor-9056');
    await t.started.app.subjectKeys.forget(`company-${companyId}`);
    const h = await history();
    expect(h.length).toBeGreaterThanOrEqual(before.length);
    expect(h.filter((x) => x.action !== 'Vendor forgotten').map((x) => x.id)).toEqual(
      expect.arrayContaining(before.map((x) => x.id)),
    );
    expect(one(h, 'Created').changes).toContainEqual({ field: 'recipients', from: null, to: '[erased]' });
    expect(one(h, 'Bank upload confirmed')).toMatchObject({
      actorKind: 'link-recipient',
      userName: '[erased] (e-mail link)',
    });
    expect(one(h, 'Bank upload link sent').details).toMatch(/^To \[erased\],/);
    expect(JSON.stringify(h)).not.toContain(RECIPIENT);
    // While the approval is open (its payment run not done) the vendor's forgetting is part of its
    // history; once closed, what happens to its vendors no longer is.
    const closed = h.some((x) => /^QuickBooks payment sync (succeeded|skipped)$/.test(x.action));
    const forgotten = h.filter((x) => x.action === 'Vendor forgotten');
    if (closed) expect(forgotten).toEqual([]);
    else
      expect(forgotten.map((x) => x.details)).toEqual([
        "Bob’s Burger Joint: its own contacts and bank details erased; this approval keeps the copy it was made with (the company's record)",
      ]);
  });
});

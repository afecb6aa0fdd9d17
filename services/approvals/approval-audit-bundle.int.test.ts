// The audit bundle through the product (GET …/approvals/{id}/audit-bundle): ADMIN and MODERATOR get
// the file `npm run audit -- export` writes, as an attachment, and the standalone verifier proves it
// against the published anchors; the export is recorded by the caller, so the history names them.
// USER is refused (403) and nothing is appended; an unknown or malformed id, or an approval outside a
// moderator's companies, is not found (404) in the envelope, and nothing is appended either. The
// verifier refuses the file cut short (or without its export) or with its view changed, still proves
// a file after the approval was exported again (against the newer anchors), and reports the personal
// fields of an event sealed before commitments were kept as unverified, never as proven.
// Events are appended as the product's own: making approvals through the API would need QuickBooks.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personalFieldsOf } from '../../schema/shared/events.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { approvalCreated } from '../../test/support/bills.js';
import { api, signIn } from '../../test/support/http.js';
import { anchorFile } from '../eventstore/anchor-publish.js';
import { type PersonalDataStore, sealData } from '../privacy/personal-data.js';
import { approvalStreamId } from './approval-decider.js';

const A = '/api/bill-approval/approvals';
const VERIFIER = path.resolve(import.meta.dirname, '../../tools/audit-verifier.mjs');
let t: TestApp;
let admin = '';
let moderator = '';
let user = '';
let adminId = 0;
let moderatorId = 0;
const open = randomUUID();
const closed = randomUUID();
const older = randomUUID();
/** ADMIN's first download of `open`, kept to be verified again once the approval has moved on. */
let firstBundle = '';

async function register(role: string, email: string, lastName: string) {
  const r = await api(t.url, 'POST', '/api/auth/register', {
    body: { email, password: 'Passw0rd-123', role, firstName: 'Ada', lastName },
    token: admin,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const signed = await signIn(t.url, email, 'Passw0rd-123');
  return { token: signed.tokens.accessToken, id: Number(signed.user.id) };
}

async function company(name: string, openToAllStaff: boolean) {
  const c = await api(t.url, 'POST', '/api/company/companies', { body: { name }, token: admin });
  const id = c.body.data.id as number;
  if (openToAllStaff)
    await api(t.url, 'PUT', `/api/bill-approval/policies/${id}`, {
      body: { creatorMayNotApprove: false, secondApprovalThreshold: null, assignedStaffOnly: false },
      token: admin,
    });
  return id;
}

async function createApproval(id: string, companyId: number, opts: { commitments?: boolean } = {}) {
  const at = new Date(Date.now() - 60_000).toISOString();
  const created = approvalCreated({
    approvalId: id,
    companyId,
    createdBy: adminId,
    vendorContacts: [{ qbVendorId: '55', email: 'ap@acme.test', phone: null }],
    recipients: ['boss@client.test'],
    at,
  });
  const event = {
    id: randomUUID(),
    type: created.type,
    data: created.data,
    metadata: { userId: String(adminId) },
  };
  if (opts.commitments !== false) {
    await t.started.app.store.append(approvalStreamId(id), [event], 'any');
    return;
  }
  // Sealed as before commitments were kept, and appended below the personal-data layer.
  const spec = personalFieldsOf(created.type);
  if (!spec) throw new Error('ApprovalCreated has personal fields');
  const data = created.data as unknown as Record<string, unknown>;
  const subject = spec.subject(data);
  const key = await t.started.app.subjectKeys.getOrCreate(subject);
  const sealed = sealData(event.id, data, spec, subject, key, { commit: false });
  await (t.started.app.store as PersonalDataStore).inner.append(
    approvalStreamId(id),
    [{ ...event, data: sealed }],
    'any',
  );
}

const version = async (id: string) => (await t.started.app.store.readStream(approvalStreamId(id))).version;

async function download(id: string, token: string) {
  const res = await fetch(`${t.url}${A}/${id}/audit-bundle`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
}

/** The standalone verifier, as an auditor runs it: its exit status and what it printed. */
async function verify(bundleText: string) {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'audit-bundle-')), 'bundle.json');
  writeFileSync(file, bundleText);
  const anchors = await anchorFile(t.started.app.pool);
  return promisify(execFile)(process.execPath, [VERIFIER, file, anchors]).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );
}

beforeAll(async () => {
  t = await startTestApp();
  const signed = await signIn(t.url, t.admin.email, t.admin.password);
  admin = signed.tokens.accessToken;
  adminId = Number(signed.user.id);
  const mod = await register('MODERATOR', 'mod@audit-bundle.test', 'Moderator');
  moderator = mod.token;
  moderatorId = mod.id;
  user = (await register('USER', 'user@audit-bundle.test', 'User')).token;
  await createApproval(open, await company('Bundle Bakery', true));
  await createApproval(closed, await company('Closed Books Ltd', false));
  await createApproval(older, await company('Older Seals Co', true), { commitments: false });
}, 120_000);

afterAll(async () => {
  await t?.stop();
});

describe('GET /approvals/{id}/audit-bundle', () => {
  it('gives ADMIN the bundle as an attachment, and the standalone verifier proves it', async () => {
    const r = await download(open, admin);
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('content-disposition')).toMatch(
      new RegExp(`^attachment; filename="audit-${open}\\.json"`),
    );
    expect(r.body).toMatchObject({ format: 'billflow-audit-bundle/1', approvalId: open });
    expect(r.body.events.map((e: { type: string }) => e.type)).toEqual([
      'ApprovalCreated',
      'ApprovalAuditExported',
    ]);
    expect(r.body.events[1].data).toMatchObject({ approvalId: open, byUserId: adminId });
    // Sealed as stored, opened in the view.
    expect(JSON.stringify(r.body.events[0].data)).not.toContain('acme.test');
    expect(JSON.stringify(r.body.view[0].data)).toContain('ap@acme.test');
    const checked = await verify(r.text);
    expect(checked.out).toMatch(/^OK: /m);
    // Each field of both view entries proven: ApprovalCreated's 11 (its two sealed ones by their
    // commitments) and ApprovalAuditExported's 4.
    expect(checked.out).toMatch(/view: 15 field\(s\) proven against the events, 0 unverified$/m);
    expect(checked.out).not.toMatch(/UNVERIFIED/);
    expect(checked.code).toBe(0);
    // A changed event is refused by the same verifier: the check above is not a formality.
    const forged = structuredClone(r.body);
    forged.events[1].data.byUserId = adminId + 1;
    expect((await verify(JSON.stringify(forged))).code).toBe(1);
    firstBundle = r.text;
    // Its export taken away (cut to its first event): it no longer ends with an export, and is refused.
    const cut = structuredClone(r.body);
    cut.events = cut.events.slice(0, 1);
    cut.view = cut.view.slice(0, 1);
    const short = await verify(JSON.stringify(cut));
    expect(short.code).toBe(1);
    expect(short.out).toMatch(
      new RegExp(
        `^FAILED  stream approval-${open}: the bundle ends with version 1, ApprovalCreated, not with an export of this approval \\(ApprovalAuditExported\\)`,
        'm',
      ),
    );
    // The view's vendor e-mail replaced: the sealed field no longer matches its commitment.
    const relabelled = structuredClone(r.body);
    relabelled.view[0].data.vendorContacts[0].email = 'ap@elsewhere.test';
    const seen = await verify(JSON.stringify(relabelled));
    expect(seen.code).toBe(1);
    expect(seen.out).toMatch(
      /^FAILED {2}view version 1 ApprovalCreated\.vendorContacts: does not match the commitment sealed in the event$/m,
    );
  });

  it('reports the personal fields of an event sealed without commitments as unverified, and still proves the rest', async () => {
    const r = await download(older, admin);
    expect(r.status, r.text).toBe(200);
    expect(r.body.events[0].data.pii.c).toBeUndefined();
    expect(r.body.view[0].salt).toBeUndefined();
    expect(JSON.stringify(r.body.view[0].data)).toContain('boss@client.test');
    const checked = await verify(r.text);
    expect(checked.code, checked.out).toBe(0);
    expect(checked.out.split('\n').filter((l) => l.startsWith('UNVERIFIED'))).toEqual([
      'UNVERIFIED  view version 1 ApprovalCreated.recipients: sealed without a commitment (before they were kept): cannot be checked',
      'UNVERIFIED  view version 1 ApprovalCreated.vendorContacts: sealed without a commitment (before they were kept): cannot be checked',
    ]);
    expect(checked.out).toMatch(/^OK: .*view: 13 field\(s\) proven against the events, 2 unverified$/m);
    // Its plain fields are still held to the event.
    const changed = structuredClone(r.body);
    changed.view[0].data.bills[0].TotalAmt = 1;
    const refused = await verify(JSON.stringify(changed));
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/^FAILED {2}view version 1 ApprovalCreated\.bills: differs from the event$/m);
  });

  it('gives MODERATOR the bundle, recorded as theirs: the history names them', async () => {
    const r = await download(open, moderator);
    expect(r.status, r.text).toBe(200);
    expect(r.body.events.at(-1)).toMatchObject({
      type: 'ApprovalAuditExported',
      data: { byUserId: moderatorId },
    });
    expect((await verify(r.text)).code).toBe(0);
    const history = await api(t.url, 'GET', `${A}/${open}/history`, { token: moderator });
    expect(history.status).toBe(200);
    const exports = history.body.data.filter((s: { action: string }) => s.action === 'Audit bundle exported');
    expect(exports.map((s: { userId: number; userName: string }) => [s.userId, s.userName])).toEqual([
      [adminId, expect.any(String)],
      [moderatorId, 'Ada Moderator'],
    ]);
    // ADMIN's bundle, exported before this one, still verifies against the anchors file as it is now
    // (which records the moderator's export as the stream's head): it is held to its own export, and
    // the later event is only noted.
    expect(firstBundle).not.toBe('');
    const earlier = await verify(firstBundle);
    expect(earlier.code, earlier.out).toBe(0);
    expect(earlier.out).toMatch(/^OK: /m);
    expect(earlier.out).toMatch(
      new RegExp(
        `^NOTE  stream approval-${open} has later events than this bundle: the published anchors record up to version 3 \\(anchor \\d+\\)`,
        'm',
      ),
    );
    // This bundle without its own export ends at ADMIN's: that earlier export's bundle, proved as such.
    const atEarlier = structuredClone(r.body);
    atEarlier.events = atEarlier.events.slice(0, 2);
    atEarlier.view = atEarlier.view.slice(0, 2);
    expect((await verify(JSON.stringify(atEarlier))).code).toBe(0);
  });

  it('refuses USER (403) and appends nothing', async () => {
    const before = await version(open);
    const r = await download(open, user);
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ success: false, code: 'FORBIDDEN' });
    const anonymous = await fetch(`${t.url}${A}/${open}/audit-bundle`);
    expect(anonymous.status).toBe(401);
    expect(await version(open)).toBe(before);
  });

  it('answers an unknown or malformed id, or a company outside the moderator’s, 404 in the envelope', async () => {
    for (const id of [randomUUID(), 'not-an-id']) {
      const r = await download(id, admin);
      expect(r.status, id).toBe(404);
      expect(r.body).toMatchObject({ success: false, code: 'NOT_FOUND', message: 'Approval not found' });
    }
    expect(await version(randomUUID())).toBe(0);
    const before = await version(closed);
    expect((await download(closed, moderator)).status).toBe(404);
    expect(await version(closed)).toBe(before);
    expect((await download(closed, admin)).status).toBe(200);
  });
});

// `npm run audit` on the demo data: the log verifies, every read model rebuilds to the live rows (and
// a planted difference is named), and an approval's bundle is proved by the standalone verifier,
// which refuses it once an event's data, an audit path's hash or an anchor is changed, once it is cut
// short of its own export (or has that export taken away), and once its view says other than the
// events (a plain field, or a sealed one against its commitment). A bundle stays proved after the
// approval moves on (exported again, anchored later): it is held to the head as of its own export.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bundle, exportApproval } from '../services/approvals/audit-bundle.js';
import { anchorFile } from '../services/eventstore/anchor-publish.js';
import { writeAnchors } from '../services/eventstore/anchors.js';
import type { PersonalDataStore } from '../services/privacy/personal-data.js';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { api, signIn } from '../test/support/http.js';
import { auditRebuildCheck, auditReplay, auditVerify } from './audit.js';
// @ts-expect-error: plain JavaScript on purpose (Node alone runs it), without type declarations
import { checkBundle, verifyBundle } from './audit-verifier.mjs';
import { type QboSandbox, startQboSandbox } from './qbo-sandbox/server.js';
import { seedDemoData } from './seed.js';

let t: TestApp;
let sim: QboSandbox;
const app = { clientId: 'billflow-demo', clientSecret: 'demo-secret' };
const shortLivedApp = { clientId: 'billflow-demo-2min', clientSecret: 'demo-2min-secret' };
const lines = () => {
  const out: string[] = [];
  return { out, push: (l: string) => out.push(l) };
};

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [app, { ...shortLivedApp, accessTtlSeconds: 120 }] });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  await seedDemoData(t.started.app, { url: sim.url, gatewayUrl: t.url, app, shortLivedApp });
}, 120_000);
afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

const store = () => t.started.app.store as PersonalDataStore;
const publishedLines = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
/** The verifier's failure for a bundle whose last event, version `n`, is not an export. */
const endsWith = (id: string, n: number, type: string) =>
  `stream approval-${id}: the bundle ends with version ${n}, ${type}, not with an export of this approval (ApprovalAuditExported): it is cut short or was not made by an export, so nothing shows it whole`;

describe('npm run audit on the demo data', () => {
  it('verify: the seeded log is whole, every anchor published', async () => {
    await writeAnchors(t.started.app.pool, store().inner);
    const o = lines();
    expect(await auditVerify(t.started.app.pool, o.push)).toBe(0);
    expect(o.out.at(-1)).toBe('The log is intact.');
    expect(o.out[0]).toMatch(/^checked \d+ events in \d+ streams and \d+ anchors \(\d+ published\)/);
    // The ADMIN call serves the published lines; anyone else is refused.
    const token = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
    const served = await api(t.url, 'GET', '/api/operations/anchors?limit=1000', { token });
    expect(served.status).toBe(200);
    expect(served.body.data.anchors.length).toBeGreaterThan(0);
    expect(served.body.data.anchors[0]).toMatchObject({ seq: 1, version: 2, previous: null });
    expect((await api(t.url, 'GET', '/api/operations/anchors')).status).toBe(401);
  });

  it('rebuild-check: every read model rebuilt from the log matches the live rows; a planted one is named', async () => {
    const o = lines();
    const code = await auditRebuildCheck(t.started.app.pool, store(), o.push);
    expect(o.out.filter((l) => l.startsWith('DIFFERS'))).toEqual([]);
    expect(code).toBe(0);
    // Counted per table: the demo's 12 approvals, and their counters by company, status and priority
    // (those at zero left out: live keeps them, a rebuild never writes them).
    const count = async (query: string) => (await t.started.app.pool.query(query)).rows[0].n as number;
    expect(await count('SELECT count(*)::int AS n FROM approvals')).toBe(12);
    const counters = await count('SELECT count(*)::int AS n FROM approval_counts WHERE n <> 0');
    expect(o.out).toContain(`rebuilt approvals: approvals 12 row(s), approval_counts ${counters} row(s)`);
    const { rows } = await t.started.app.pool.query('SELECT id FROM approvals ORDER BY id LIMIT 1');
    await t.started.app.pool
      .query(`UPDATE approvals SET priority = 'LOW', managers_count = -1 WHERE id = $1`, [rows[0].id])
      .catch(() =>
        t.started.app.pool.query(
          `UPDATE approvals SET priority = CASE WHEN priority = 'LOW' THEN 'HIGH' ELSE 'LOW' END WHERE id = $1`,
          [rows[0].id],
        ),
      );
    const planted = lines();
    expect(await auditRebuildCheck(t.started.app.pool, store(), planted.push)).toBe(1);
    expect(planted.out).toContainEqual(
      expect.stringMatching(
        new RegExp(`^DIFFERS  approvals approvals \\{"id":"${rows[0].id}"\\}: differs \\(.*priority`),
      ),
    );
  }, 60_000);

  it('replay and export: each event with its state; the bundle proves itself, and refuses any change', async () => {
    const pool = t.started.app.pool;
    const { rows } = await pool.query(
      `SELECT id FROM approvals WHERE status <> 'PENDING' ORDER BY id LIMIT 1`,
    );
    const id = rows[0].id as string;
    const replay = lines();
    expect(await auditReplay(store(), id, replay.push)).toBe(0);
    expect(replay.out[0]).toMatch(/^#1 {2}\S+ {2}\S+ {2}ApprovalCreated {2}by user \d+$/);
    expect(replay.out[1]).toMatch(/"status":"PENDING"/);

    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'audit-')), 'anchors.jsonl');
    const bundle = await exportApproval(pool, { raw: store().inner, opened: store() }, id, {
      publishTo: file,
    });
    expect(bundle.events.at(-1)?.type).toBe('ApprovalAuditExported');
    // Sealed as stored, opened in the view.
    expect(JSON.stringify(bundle.events[0].data)).toContain('"pii"');
    expect(JSON.stringify(bundle.view[0].data)).not.toContain('"pii"');
    // Logarithmic: a path per event, never the range's every hash.
    for (const e of bundle.events)
      expect(e.proof.path.length).toBeLessThanOrEqual(Math.ceil(Math.log2(10_000)));
    const published = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(verifyBundle(bundle, published)).toEqual([]);

    const changed = (f: (b: typeof bundle) => void) => {
      const copy = structuredClone(bundle);
      f(copy);
      return verifyBundle(copy, published) as string[];
    };
    expect(
      changed((b) => (b.events[1].metadata = { ...(b.events[1].metadata as object), forged: true })),
    ).toContainEqual(expect.stringMatching(/^stream approval-\S+ version 2: .*does not give its hash/));
    const withPath = bundle.events.find((e) => e.proof.path.length > 0);
    expect(withPath).toBeDefined();
    expect(
      changed((b) => {
        const e = b.events.find((x) => x.id === withPath?.id);
        if (e) e.proof.path[0] = '00'.repeat(32);
      }),
    ).toContainEqual(expect.stringMatching(/its audit path does not lead to anchor \d+'s root/));
    expect(changed((b) => (b.anchors[0].root = '11'.repeat(32)))).toContainEqual(
      expect.stringMatching(/^anchor \d+: differs from the published one/),
    );
    // The database's own published file holds the same anchors (the job wrote there as well).
    expect(readFileSync(await anchorFile(pool), 'utf8')).toContain(bundle.anchors[0].digest);
  }, 60_000);

  it('export of a paid approval: whole up to its anchored head, its view proven field by field', async () => {
    const pool = t.started.app.pool;
    const { rows } = await pool.query(
      `SELECT id FROM approvals WHERE status = 'PAYMENT_COMPLETED' ORDER BY id LIMIT 1`,
    );
    const id = rows[0].id as string;
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'audit-')), 'anchors.jsonl');
    const bundle = await exportApproval(pool, { raw: store().inner, opened: store() }, id, {
      publishTo: file,
    });
    const published = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    type Checked = { failures: string[]; unverified: string[]; proven: number };
    const check = (b: typeof bundle) => checkBundle(b, published) as Checked;
    const changed = (f: (b: typeof bundle) => void) => {
      const copy = structuredClone(bundle);
      f(copy);
      return check(copy);
    };
    const m = bundle.events.length;
    const types = bundle.events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['ApprovalCreated', 'PaymentCompleted']));
    expect(types.at(-1)).toBe('ApprovalAuditExported');

    // Intact: every field of the view proven, none unverified (every event sealed with commitments).
    const intact = check(bundle);
    expect(intact.failures).toEqual([]);
    expect(intact.unverified).toEqual([]);
    const fieldCount = bundle.view.reduce((n, v) => n + Object.keys(v.data as object).length, 0);
    expect(intact.proven).toBe(fieldCount);
    // The sealed fields carry commitments, never a plain value; the view gives their salt.
    const created = bundle.events[0].data as { pii: { f: string[]; c: string[] } };
    expect(created.pii.c).toHaveLength(created.pii.f.length);
    const recipients = (bundle.view[0].data as { recipients: string[] }).recipients;
    expect(recipients.length).toBeGreaterThan(0);
    for (const r of recipients) expect(JSON.stringify(bundle.events)).not.toContain(r);
    expect(bundle.view[0].salt).toMatch(/^[\w-]{43}$/);

    // Cut to its first N of M events (the view too): it no longer ends with an export (an earlier
    // test's export of the same approval, were it one of them, would be a bundle of its own).
    for (const n of [1, Math.floor(m / 3), m - 1].filter((n) => types[n - 1] !== 'ApprovalAuditExported')) {
      const cut = changed((b) => {
        b.events = b.events.slice(0, n);
        b.view = b.view.slice(0, n);
      });
      expect(cut.failures).toEqual([endsWith(id, n, types[n - 1])]);
    }
    // The events cut but the view left whole, or the view cut alone: each named.
    expect(changed((b) => (b.events = b.events.slice(0, m - 1))).failures).toContainEqual(
      `view version ${m}: no event of approval-${id} in the bundle has this version`,
    );
    expect(changed((b) => (b.view = b.view.slice(0, m - 1))).failures).toEqual([
      `view version ${m}: ApprovalAuditExported is missing from the view`,
    ]);

    // A recipient's e-mail replaced in the view: it no longer matches the commitment sealed in the event.
    expect(
      changed((b) => ((b.view[0].data as { recipients: string[] }).recipients[0] = 'someone@else.test'))
        .failures,
    ).toEqual([
      'view version 1 ApprovalCreated.recipients: does not match the commitment sealed in the event',
    ]);
    // Who a link went to or who confirmed by one (`recipient`, sealed), replaced.
    const confirmer = bundle.view.find(
      (v) => typeof (v.data as { recipient?: unknown }).recipient === 'string',
    );
    expect(confirmer?.type).toMatch(/^(ApprovalLinkIssued|BankUploadConfirmed|PaymentCompleted)$/);
    expect(
      changed((b) => {
        const v = b.view.find((x) => x.version === confirmer?.version);
        (v?.data as { recipient: string }).recipient = 'someone@else.test';
      }).failures,
    ).toEqual([
      `view version ${confirmer?.version} ${confirmer?.type}.recipient: does not match the commitment sealed in the event`,
    ]);
    // A bill's amount replaced: a plain field that differs from the event.
    expect(
      changed((b) => {
        const bill = (b.view[0].data as { bills: Array<{ TotalAmt: number }> }).bills[0];
        bill.TotalAmt += 1000;
      }).failures,
    ).toEqual(['view version 1 ApprovalCreated.bills: differs from the event']);
    // A file's amount replaced, on whichever payment event holds one in cents.
    const withCents = bundle.view.find(
      (v) => typeof (v.data as { totalCreditCents?: unknown }).totalCreditCents === 'number',
    );
    expect(withCents).toBeDefined();
    expect(
      changed((b) => {
        const v = b.view.find((x) => x.version === withCents?.version);
        (v?.data as { totalCreditCents: number }).totalCreditCents += 100;
      }).failures,
    ).toEqual([
      `view version ${withCents?.version} ${withCents?.type}.totalCreditCents: differs from the event`,
    ]);
    // A field added, one left out, the salt taken away, a sealed field claimed erased.
    expect(changed((b) => ((b.view[1].data as Record<string, unknown>).note = 'ok')).failures).toEqual([
      `view version 2 ${bundle.view[1].type}.note: is not in the event`,
    ]);
    expect(changed((b) => delete (b.view[0].data as Record<string, unknown>).recipients).failures).toEqual([
      'view version 1 ApprovalCreated.recipients: is sealed in the event but missing from the view',
    ]);
    expect(changed((b) => delete b.view[0].salt).failures).toEqual(
      created.pii.f
        .slice()
        .sort()
        .map(
          (f) =>
            `view version 1 ApprovalCreated.${f}: the view gives no salt for the commitment the event keeps`,
        ),
    );
    const claimedErased = changed((b) => {
      b.view[0].erased = ['recipients'];
      (b.view[0].data as Record<string, unknown>).recipients = null;
    });
    expect(claimedErased.failures).toEqual([]);
    expect(claimedErased.unverified).toEqual([
      'view version 1 ApprovalCreated.recipients: erased (its subject was forgotten): nothing to check',
    ]);
    // An entry claimed to be read in today's shape: what differs is unverified, never proven.
    const reshaped = changed((b) => {
      b.view[0].reshaped = true;
      (b.view[0].data as { recipients: string[] }).recipients[0] = 'someone@else.test';
    });
    expect(reshaped.failures).toEqual([]);
    expect(reshaped.unverified).toEqual([
      "view version 1 ApprovalCreated.recipients: does not match its commitment (the entry is read in today's shape)",
    ]);
    expect(reshaped.proven).toBe(intact.proven - 1);
  }, 60_000);
  it('a bundle stays proved after the approval moves on; cut short, or without its export, it is refused', async () => {
    const pool = t.started.app.pool;
    // An approval no test here has exported yet: its last event before an export is not one.
    const { rows } = await pool.query<{ id: string }>(
      `SELECT id FROM approvals WHERE status <> 'PENDING' ORDER BY id DESC`,
    );
    let id = '';
    for (const r of rows) {
      const s = await store().inner.readStream(`approval-${r.id}`);
      if (!s.events.some((e) => e.type === 'ApprovalAuditExported')) {
        id = r.id;
        break;
      }
    }
    expect(id).not.toBe('');
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'audit-')), 'anchors.jsonl');
    const exportNow = () =>
      exportApproval(pool, { raw: store().inner, opened: store() }, id, { publishTo: file });
    type Checked = { failures: string[]; unverified: string[]; proven: number; notes: string[] };
    const check = (b: Bundle, lines: unknown[]) => checkBundle(b, lines) as Checked;
    const first = await exportNow();
    const k = first.events.length;
    const types = first.events.map((e) => e.type);
    expect(types.at(-1)).toBe('ApprovalAuditExported');
    expect(types.slice(0, -1)).not.toContain('ApprovalAuditExported');
    const then = publishedLines(file);
    expect(check(first, then)).toMatchObject({ failures: [], notes: [] });
    const cut = (b: Bundle, n: number) => ({ ...b, events: b.events.slice(0, n), view: b.view.slice(0, n) });
    // Its export taken away, or cut to its first events: it ends with no export, and is refused.
    expect(check(cut(first, k - 1), then).failures).toEqual([endsWith(id, k - 1, types[k - 2])]);
    expect(check(cut(first, 1), then).failures).toEqual([endsWith(id, 1, 'ApprovalCreated')]);

    // The approval moves on: exported again (a later event of the stream, anchored after the first
    // export's anchor), and the anchors file grows.
    const second = await exportNow();
    expect(second.events).toHaveLength(k + 1);
    const later = publishedLines(file);
    expect(later.length).toBeGreaterThan(then.length);
    const secondAnchor = second.events[k].proof.anchor;
    expect(secondAnchor).toBeGreaterThan(first.events[k - 1].proof.anchor);
    // The first bundle still proves itself against the newer file, held to the head of its own export;
    // the later events are only noted.
    const again = check(first, later);
    expect(again.failures).toEqual([]);
    expect(again.proven).toBe(check(first, then).proven);
    expect(again.notes).toEqual([
      `stream approval-${id} has later events than this bundle: the published anchors record up to version ${k + 1} (anchor ${secondAnchor}); they came after this export and are not part of it`,
    ]);
    expect(check(second, later)).toMatchObject({ failures: [], notes: [] });
    // The second cut back to the first export is the first export's bundle: legitimate.
    expect(check(cut(second, k), later).failures).toEqual([]);
    // Cut anywhere else, or with its own export taken away past the first's, refused.
    expect(check(cut(second, k - 1), later).failures).toEqual([endsWith(id, k - 1, types[k - 2])]);
    // An export that no published line covers (the file handed over without its last anchors).
    const before = later.filter((a: { seq: number }) => a.seq < secondAnchor);
    expect(check(second, before).failures).toContainEqual(
      `stream approval-${id}: its export (version ${k + 1}) is under no published anchor: the bundle cannot be shown whole`,
    );
    // The export's position moved into an earlier anchor's range: its proof names another anchor.
    const moved = structuredClone(second);
    moved.events[k].position = first.events[k - 1].position;
    expect(check(moved, later).failures).toContainEqual(
      `stream approval-${id}: its export (version ${k + 1}) lies in published anchor ${first.events[k - 1].proof.anchor}'s range but its proof names anchor ${secondAnchor}`,
    );

    // What keeps an export's anchor at its own event: anchors written `through` a position end there,
    // and record the stream's head as of it; the event after it is left to the next anchor.
    const streamId = `approval-${id}`;
    const exportedEvent = (n: number) => ({
      id: randomUUID(),
      type: 'ApprovalAuditExported',
      schemaVersion: 1,
      data: {
        approvalId: id,
        companyId: (first.events[0].data as { companyId: number }).companyId,
        byUserId: null,
        at: new Date().toISOString(),
      },
      metadata: { userId: null, source: `audit-test-${n}` },
    });
    const one = await store().inner.append(streamId, [exportedEvent(1)], k + 1);
    await store().inner.append(streamId, [exportedEvent(2)], k + 2);
    const upTo = await writeAnchors(pool, store().inner, { publishTo: file, through: one.position });
    expect(upTo.at(-1)?.lastPosition).toBe(one.position);
    expect(
      upTo
        .at(-1)
        ?.heads?.filter(([s]) => s === streamId)
        .map(([, v]) => v),
    ).toEqual([k + 2]);
    const rest = await writeAnchors(pool, store().inner, { publishTo: file });
    expect(
      rest
        .at(-1)
        ?.heads?.filter(([s]) => s === streamId)
        .map(([, v]) => v),
    ).toEqual([k + 3]);
  }, 60_000);
});

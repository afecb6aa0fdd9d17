// `npm run audit` on the demo data: the log verifies, every read model rebuilds to the live rows (and
// a planted difference is named), and an approval's bundle is proved by the standalone verifier,
// which refuses it once an event's data, an audit path's hash or an anchor is changed, once it is cut
// short of the stream's anchored head, and once its view says other than the events (a plain field,
// or a sealed one against its commitment).
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportApproval } from '../services/approvals/audit-bundle.js';
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

    // Cut to its first N of M events (the view too): the missing versions are named.
    for (const n of [1, Math.floor(m / 3), m - 1]) {
      const cut = changed((b) => {
        b.events = b.events.slice(0, n);
        b.view = b.view.slice(0, n);
      });
      expect(cut.failures).toContainEqual(
        `stream approval-${id}: the published anchors record version ${m} as its head (anchor ${bundle.events[m - 1].proof.anchor}) but the bundle stops at version ${n}: ${
          n === m - 1 ? `version ${m} is` : `versions ${n + 1}–${m} are`
        } missing (a bundle exported before them no longer shows the whole stream: export it again)`,
      );
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
});

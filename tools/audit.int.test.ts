// `npm run audit` on the demo data: the log verifies, every read model rebuilds to the live rows (and
// a planted difference is named), and an approval's bundle is proved by the standalone verifier,
// which refuses it once an event's data, an audit path's hash or an anchor is changed.
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
import { verifyBundle } from './audit-verifier.mjs';
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
});

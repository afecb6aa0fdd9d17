// The activity feed by role, through the running product's own calls: approvals
// created, approved and rejected and companies connected to QuickBooks make lines; an ADMIN reads
// every line, staff only those of the companies in their scope (decision 0001) and of the kinds
// their role reads elsewhere, over REST, GraphQL and the live `activityAdded` push alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { socketClient } from '../../test/support/socket.js';
import { connectOverHttp } from '../../tools/qbo-sandbox/connect.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';

let sim: QboSandbox;
let t: TestApp;
const tokens: Record<string, string> = {};
const ids: Record<string, number> = {};
const qbApp = { clientId: 'billflow-activity', clientSecret: 'activity-secret-value-456' };
const A = '/api/bill-approval/approvals';
const C = '/api/company/companies';
let inScope = 0;
let outOfScope = 0;

const activityOf = (companyId: number, token: string, query = '') =>
  api(t.url, 'GET', `${C}/${companyId}/activity${query}`, { token });
const descriptions = (r: { body: any }) =>
  (r.body.data as Array<{ description: string }>).map((a) => a.description);

async function connectedCompany(name: string, realmIndex: number, assign: Record<string, unknown> = {}) {
  const c = await api(t.url, 'POST', C, { body: { name, ...assign }, token: tokens.admin });
  expect(c.status).toBe(201);
  const id = c.body.data.id as number;
  const { realmId } = await connectOverHttp({
    gatewayUrl: t.url,
    simUrl: sim.url,
    token: tokens.admin,
    companyId: id,
    app: qbApp,
    realmIndex,
  });
  const realm = sim.realms().find((r) => r.realmId === realmId)!;
  return { id, bills: realm.bills.filter((b) => Number(b.Balance) > 0).map((b) => b.Id) };
}

/** Waits for a condition outside a test (expect.poll works inside one only). */
async function until(ok: () => Promise<boolean>, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error('the activity read model did not catch up');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A graphql-ws client that records the activity lines it is pushed. */
function watchActivity(token: string, variables: Record<string, unknown> = {}) {
  const lines: string[] = [];
  const errors: unknown[] = [];
  const client = socketClient(t.url, token);
  const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
  client.subscribe(
    {
      query: 'subscription ($companyId: Int) { activityAdded(companyId: $companyId) { id description } }',
      variables,
    },
    {
      next: (v) => {
        const line = (v.data as { activityAdded: { description: string } | null } | undefined)?.activityAdded;
        if (line) lines.push(line.description);
      },
      error: (e) => errors.push(e),
      complete: () => {},
    },
  );
  return { client, lines, errors, connected };
}

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 100_000, concurrentPerRealm: 50 });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  tokens.admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  for (const [key, role] of [
    ['mod', 'MODERATOR'],
    ['user', 'USER'],
  ] as const) {
    const email = `${key}@activity.test`;
    const r = await api(t.url, 'POST', '/api/auth/register', {
      body: {
        email,
        password: 'Passw0rd-123',
        role,
        firstName: key === 'mod' ? 'Mona' : 'Ursula',
        lastName: 'Staff',
      },
      token: tokens.admin,
    });
    expect(r.status).toBe(201);
    ids[key] = r.body.data.id;
    tokens[key] = (await signIn(t.url, email, 'Passw0rd-123')).tokens.accessToken;
  }
  const mine = await connectedCompany('Assigned Client Co', 0, {
    approverId: ids.mod,
    processorId: ids.user,
  });
  const other = await connectedCompany('Other Client Co', 1);
  inScope = mine.id;
  outOfScope = other.id;
  // On the assigned company: one approval approved by its approver, one rejected.
  const first = await api(t.url, 'POST', A, {
    body: { companyId: mine.id, billIds: [mine.bills[0]], recipients: ['payables@activity.test'] },
    token: tokens.admin,
  });
  expect(first.status).toBe(201);
  const approved = await api(t.url, 'PUT', `${A}/${first.body.data.id}/approve`, {
    body: { approvedBills: [mine.bills[0]] },
    token: tokens.mod,
  });
  expect(approved.status).toBe(200);
  const second = await api(t.url, 'POST', A, {
    body: { companyId: mine.id, billIds: [mine.bills[1]] },
    token: tokens.admin,
  });
  expect(second.status).toBe(201);
  const rejected = await api(t.url, 'PUT', `${A}/${second.body.data.id}/reject`, {
    body: { rejectionReason: 'Duplicate of last month' },
    token: tokens.mod,
  });
  expect(rejected.status).toBe(200);
  // On the other company: one approval, out of the staff's scope.
  const third = await api(t.url, 'POST', A, {
    body: { companyId: other.id, billIds: [other.bills[0]] },
    token: tokens.admin,
  });
  expect(third.status).toBe(201);
  // The activity read model follows the writes shortly after.
  await until(async () => descriptions(await activityOf(other.id, tokens.admin)).length >= 3);
  await until(async () => descriptions(await activityOf(mine.id, tokens.admin)).length >= 6);
}, 120_000);
afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

describe('the activity feed by role', () => {
  it("ADMIN's dashboard shows approvals and companies, not only sign-ins", async () => {
    const r = await api(t.url, 'GET', '/api/dashboard/stats', { token: tokens.admin });
    expect(r.status).toBe(200);
    const shown = r.body.data.recentActivity.map((a: { description: string }) => a.description);
    expect(
      shown.some((d: string) => /created an approval for Other Client Co \(1 bill, \$[\d,.]+\)$/.test(d)),
    ).toBe(true);
    expect(shown).toContain('Mona Staff rejected an approval for Assigned Client Co');
    expect(shown).toContain('Mona Staff approved an approval for Assigned Client Co');
  });

  it("a company's activity: newest first, every kind for ADMIN, capped by limit; unknown is 404", async () => {
    const all = await activityOf(inScope, tokens.admin);
    expect(all.status).toBe(200);
    const lines = descriptions(all);
    const me = (await api(t.url, 'GET', '/api/auth/me', { token: tokens.admin })).body.data;
    const admin = `${me.firstName} ${me.lastName}`;
    expect(lines[0]).toBe('Mona Staff rejected an approval for Assigned Client Co');
    expect(lines).toContain('Mona Staff approved an approval for Assigned Client Co');
    expect(lines).toContain(`${admin} connected Assigned Client Co to QuickBooks`);
    expect(lines.at(-1)).toBe(`${admin} created company Assigned Client Co`);
    expect(lines.join('\n')).not.toContain('Other Client Co');
    const times = (all.body.data as Array<{ timestamp: string }>).map((a) => Date.parse(a.timestamp));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(descriptions(await activityOf(inScope, tokens.admin, '?limit=2'))).toEqual(lines.slice(0, 2));
    expect((await activityOf(inScope, tokens.admin, '?limit=0')).status).toBe(400);
    expect((await activityOf(999_999, tokens.admin)).status).toBe(404);
    const gq = await gql(
      t.url,
      'query ($id: Int!) { companyActivity(companyId: $id, limit: 3) { id description } }',
      { id: inScope },
      tokens.admin,
    );
    expect(gq.data.companyActivity.map((a: { description: string }) => a.description)).toEqual(
      lines.slice(0, 3),
    );
  });

  it('USER reads the approvals and the life of their companies only; another company is 404', async () => {
    const mine = await activityOf(inScope, tokens.user);
    expect(mine.status).toBe(200);
    const lines = descriptions(mine);
    expect(lines).toContain('Mona Staff approved an approval for Assigned Client Co');
    expect(lines.some((d) => d.startsWith('Mona Staff rejected'))).toBe(true);
    expect(lines.some((d) => d.includes('created company Assigned Client Co'))).toBe(true);
    // The QuickBooks connection is ADMIN's and MODERATOR's (companies.connectionStatus).
    expect(lines.join('\n')).not.toContain('QuickBooks');
    const other = await activityOf(outOfScope, tokens.user);
    expect(other.status).toBe(404);
    expect(other.body.message).toBe('Company not found');
    const gq = await gql(
      t.url,
      'query ($id: Int!) { companyActivity(companyId: $id) { description } }',
      { id: outOfScope },
      tokens.user,
    );
    expect(gq.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const gqMine = await gql(
      t.url,
      'query ($id: Int!) { companyActivity(companyId: $id) { description } }',
      { id: inScope },
      tokens.user,
    );
    expect(gqMine.data.companyActivity.map((a: { description: string }) => a.description)).toEqual(lines);
    // The dashboard itself stays ADMIN's.
    expect((await api(t.url, 'GET', '/api/dashboard/stats', { token: tokens.user })).status).toBe(403);
  });

  it('MODERATOR reads their companies with the QuickBooks connection too', async () => {
    const lines = descriptions(await activityOf(inScope, tokens.mod));
    expect(lines.some((d) => d.endsWith('connected Assigned Client Co to QuickBooks'))).toBe(true);
    expect((await activityOf(outOfScope, tokens.mod)).status).toBe(404);
  });

  it('the live feed pushes each line to those who may read it: staff their companies, ADMIN all', async () => {
    const admin = watchActivity(tokens.admin);
    const user = watchActivity(tokens.user);
    const userOnOther = watchActivity(tokens.user, { companyId: outOfScope });
    const adminOnMine = watchActivity(tokens.admin, { companyId: inScope });
    await Promise.all([admin.connected, user.connected, userOnOther.connected, adminOnMine.connected]);
    // A sign-in (a person's line), a change of the other company, then one of the assigned company.
    await signIn(t.url, 'mod@activity.test', 'Passw0rd-123');
    expect((await api(t.url, 'PUT', `${C}/${outOfScope}/deactivate`, { token: tokens.admin })).status).toBe(
      200,
    );
    expect((await api(t.url, 'PUT', `${C}/${inScope}/deactivate`, { token: tokens.admin })).status).toBe(200);
    await expect
      .poll(() => user.lines, { timeout: 15_000 })
      .toContainEqual(expect.stringMatching(/deactivated company Assigned Client Co$/));
    await expect.poll(() => admin.lines.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    expect(admin.lines).toContain('Mona Staff signed in');
    expect(admin.lines.some((d) => d.endsWith('deactivated company Other Client Co'))).toBe(true);
    await expect.poll(() => adminOnMine.lines.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    // The user heard of nothing else: the assigned company's line came after the others.
    expect(user.lines).toEqual([expect.stringMatching(/deactivated company Assigned Client Co$/)]);
    expect(userOnOther.lines).toEqual([]);
    expect(adminOnMine.lines).toEqual([expect.stringMatching(/deactivated company Assigned Client Co$/)]);
    for (const w of [admin, user, userOnOther, adminOnMine]) {
      expect(w.errors).toEqual([]);
      await w.client.dispose();
    }
  });
});

// Least privilege on company data: companies are ADMIN's; a
// MODERATOR or USER reads a company's id and name only (the approvals, /bills and vendors pickers),
// a MODERATOR also its QuickBooks connection status (the vendors sync offers connected companies).
// Every other field is tested one by one over REST (absent) and GraphQL (refused), for both lower
// roles, and present for the ADMIN; QuickBooks company info, bank balances and token status are the
// ADMIN's alone. Real gateway, database and the QuickBooks simulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyRead } from '../../schema/companies/answers.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { socketClient } from '../../test/support/socket.js';
import { type QboSandbox, startQboSandbox } from '../../tools/qbo-sandbox/server.js';

const BASE = '/api/company/companies';
const PASSWORD = 'Passw0rd-123';
const qbApp = { clientId: 'billflow-privacy', clientSecret: 'privacy-secret-value-789' };

let sim: QboSandbox;
let t: TestApp;
const tokens = { ADMIN: '', MODERATOR: '', USER: '' };
let companyId = 0;

/** Every company field but id and name, with what GraphQL selects for it. */
const SENSITIVE: Array<[field: string, selection: string]> = [
  ['email', 'email'],
  ['phone', 'phone'],
  ['website', 'website'],
  ['address', 'address'],
  ['description', 'description'],
  ['industry', 'industry'],
  ['status', 'status'],
  ['isActive', 'isActive'],
  ['qbRealmId', 'qbRealmId'],
  ['qbConnectionStatus', 'qbConnectionStatus'],
  ['qbLastRefresh', 'qbLastRefresh'],
  ['qbPaymentAccountReference', 'qbPaymentAccountReference'],
  ['managerId', 'managerId'],
  ['processorId', 'processorId'],
  ['approverId', 'approverId'],
  ['accountantId', 'accountantId'],
  ['manager', 'manager { id firstName lastName email }'],
  ['processor', 'processor { id firstName lastName email }'],
  ['approver', 'approver { id firstName lastName email }'],
  ['accountant', 'accountant { id firstName lastName email }'],
  ['nachaConfigured', 'nachaConfigured'],
  ['bankRoutingNumber', 'bankRoutingNumber'],
  ['bankAccountNumber', 'bankAccountNumber'],
  ['bankAccountType', 'bankAccountType'],
  ['bankName', 'bankName'],
  ['originatorStatusCode', 'originatorStatusCode'],
  ['companyTaxId', 'companyTaxId'],
  ['achCompanyId', 'achCompanyId'],
  ['immediateDestinationName', 'immediateDestinationName'],
  ['immediateOriginName', 'immediateOriginName'],
  ['companyEntryDescription', 'companyEntryDescription'],
  ['companyDiscretionaryData', 'companyDiscretionaryData'],
  ['balancedFile', 'balancedFile'],
  ['sameDayAch', 'sameDayAch'],
  ['bankConnection', 'bankConnection { mode host username passwordSet hostKeyFingerprint }'],
  ['createdAt', 'createdAt'],
  ['updatedAt', 'updatedAt'],
];
/** What each lower role reads besides id and name. */
const GRANTED: Record<'MODERATOR' | 'USER', string[]> = { MODERATOR: ['qbConnectionStatus'], USER: [] };
const LOWER = ['MODERATOR', 'USER'] as const;
const CASES = LOWER.flatMap((role) =>
  SENSITIVE.filter(([f]) => !GRANTED[role].includes(f)).map(([f, s]) => [role, f, s] as const),
);

/** Values of the fixture that must reach no lower role, in any form. */
const SECRETS = {
  taxId: '987654321',
  routing: '021000021',
  manager: 'mia.private@example.com',
  processor: 'user@privacy.test',
  approver: 'moderator@privacy.test',
  accountant: 'accountant@privacy.test',
  address: '1 Vault Street, Suite 100',
  email: 'ap@ledger.test',
};

/** Connects the company as an admin would: start, consent in the simulator's popup, callback. */
async function connect(id: number) {
  const start = await api(t.url, 'POST', `${BASE}/${id}/qb-oauth/start`, {
    body: {
      qbClientId: qbApp.clientId,
      qbClientSecret: qbApp.clientSecret,
      qbIsSandbox: true,
      qbCallbackUrl: `${t.url}${BASE}/qb-oauth/callback`,
    },
    token: tokens.ADMIN,
  });
  expect(start.status).toBe(200);
  const page = await (await fetch(start.body.data.authUrl)).text();
  const form = page.match(/<form method="post" action="([^"]+)">(.*?)<\/form>/s)!;
  const fields = Object.fromEntries(
    [...form[2].matchAll(/name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2].replace(/&#38;/g, '&')]),
  );
  const consent = await fetch(`${sim.url}${form[1]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, decision: 'allow' }).toString(),
    redirect: 'manual',
  });
  expect(await (await fetch(consent.headers.get('location')!)).text()).toContain('QB_OAUTH_SUCCESS');
}

async function user(email: string, role: string) {
  const r = await api(t.url, 'POST', '/api/auth/register', {
    body: { email, password: PASSWORD, role, firstName: 'Pat', lastName: role },
    token: tokens.ADMIN,
  });
  expect(r.status).toBe(201);
  return r.body.data.id as number;
}

beforeAll(async () => {
  sim = await startQboSandbox({ clients: [qbApp], ratePerMinute: 500 });
  t = await startTestApp({ env: { QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url } });
  tokens.ADMIN = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  const processorId = await user(SECRETS.processor, 'USER');
  const approverId = await user(SECRETS.approver, 'MODERATOR');
  const accountantId = await user(SECRETS.accountant, 'ADMIN');
  tokens.USER = (await signIn(t.url, SECRETS.processor, PASSWORD)).tokens.accessToken;
  tokens.MODERATOR = (await signIn(t.url, SECRETS.approver, PASSWORD)).tokens.accessToken;
  const m = await api(t.url, 'POST', '/api/manager/managers', {
    body: { firstName: 'Mia', lastName: 'Ross', email: SECRETS.manager },
    token: tokens.ADMIN,
  });
  expect(m.status).toBe(201);
  const c = await api(t.url, 'POST', BASE, {
    body: {
      name: 'Ledger Privacy Co',
      email: SECRETS.email,
      phone: '555-0199',
      website: 'https://ledger.test',
      address: SECRETS.address,
      description: 'Keeps its books private',
      industry: 'Finance',
      managerId: m.body.data.id,
      processorId,
      approverId,
      accountantId,
      qbPaymentAccountReference: '35',
    },
    token: tokens.ADMIN,
  });
  expect(c.status).toBe(201);
  companyId = c.body.data.id;
  const n = await api(t.url, 'PUT', `${BASE}/${companyId}/nacha-config`, {
    body: {
      bankRoutingNumber: SECRETS.routing,
      bankAccountNumber: '000123456789',
      bankAccountType: 'checking',
      bankName: 'Chase',
      companyTaxId: '98-7654321',
      achCompanyId: '1987654321',
      immediateDestinationName: 'JPMORGAN CHASE',
      companyDiscretionaryData: 'PRIV',
    },
    token: tokens.ADMIN,
  });
  expect(n.status).toBe(200);
  await connect(companyId);
}, 120_000);
afterAll(async () => {
  await t?.stop();
  await sim?.close();
});

/** The three REST reads of the company: one, the list and the search. */
async function restReads(token: string) {
  const one = await api(t.url, 'GET', `${BASE}/${companyId}`, { token });
  const list = await api(t.url, 'GET', `${BASE}?limit=1000`, { token });
  const search = await api(t.url, 'GET', `${BASE}/search?q=ledger`, { token });
  for (const r of [one, list, search]) expect(r.status).toBe(200);
  const ours = (rows: Array<{ id: number }>) => rows.find((c) => c.id === companyId);
  return { one: one.body.data, list: ours(list.body.data), search: ours(search.body.data) };
}

/** The three GraphQL reads of the company, each selecting id, name and `selection`. */
function gqlReads(selection: string, token: string) {
  return Promise.all([
    gql(t.url, `query($id: Int!) { company(id: $id) { id name ${selection} } }`, { id: companyId }, token),
    gql(t.url, `{ companies(limit: 1000) { data { id name ${selection} } } }`, {}, token),
    gql(t.url, `{ searchCompanies(q: "ledger") { id name ${selection} } }`, {}, token),
  ]);
}

/** The company in a GraphQL answer of gqlReads, if any. */
function companyOf(data: any): Record<string, unknown> | null {
  if (!data) return null;
  return data.company ?? data.companies?.data?.[0] ?? data.searchCompanies?.[0] ?? null;
}

describe('REST: a company as each role reads it', () => {
  it('the ADMIN reads every field, each with its value', async () => {
    const reads = await restReads(tokens.ADMIN);
    for (const c of [reads.one, reads.list, reads.search]) {
      expect(Object.keys(c).sort()).toEqual(['id', 'name', ...SENSITIVE.map(([f]) => f)].sort());
      for (const [field] of SENSITIVE) expect(c[field], field).not.toBeNull();
      expect(c).toMatchObject({
        companyTaxId: SECRETS.taxId,
        bankRoutingNumber: SECRETS.routing,
        processor: { email: SECRETS.processor },
      });
    }
  });

  it.each(LOWER)('a %s reads id and name, and only what its screens need', async (role) => {
    const reads = await restReads(tokens[role]);
    const expected = { id: companyId, name: 'Ledger Privacy Co' } as Record<string, unknown>;
    if (role === 'MODERATOR') expected.qbConnectionStatus = 'connected';
    for (const c of [reads.one, reads.list, reads.search]) expect(c).toEqual(expected);
  });

  it.each(CASES)('a %s does not read %s', async (role, field) => {
    const reads = await restReads(tokens[role]);
    expect(reads.one).not.toHaveProperty(field);
    expect(reads.list).not.toHaveProperty(field);
    expect(reads.search).not.toHaveProperty(field);
  });

  it.each(LOWER)('no %s answer holds a secret value of the company anywhere', async (role) => {
    const text = JSON.stringify(await restReads(tokens[role]));
    for (const [name, value] of Object.entries(SECRETS)) expect(text, name).not.toContain(value);
  });

  it('documents both answers: each role’s reads fit the contract of /api/openapi.json', async () => {
    for (const role of ['ADMIN', ...LOWER] as const) {
      const reads = await restReads(tokens[role]);
      for (const c of [reads.one, reads.list, reads.search])
        expect(CompanyRead.safeParse(c).success, role).toBe(true);
    }
    const doc = await (await fetch(`${t.url}/api/openapi.json`)).json();
    const data =
      doc.paths['/api/company/companies/{id}'].get.responses['200'].content['application/json'].schema
        .properties.data;
    const refs = JSON.stringify(data);
    expect(refs).toContain('#/components/schemas/Company"');
    expect(refs).toContain('#/components/schemas/CompanyReference"');
  });

  it.each(LOWER)('a %s cannot probe hidden fields through the list’s filters', async (role) => {
    // Searching matches the name only: the company's e-mail finds nothing.
    const byEmail = await api(t.url, 'GET', `${BASE}?search=ledger.test`, { token: tokens[role] });
    expect(byEmail.status).toBe(200);
    expect(byEmail.body.data).toEqual([]);
    const searched = await api(t.url, 'GET', `${BASE}/search?q=ap@ledger`, { token: tokens[role] });
    expect(searched.body.data).toEqual([]);
    const byStatus = await api(t.url, 'GET', `${BASE}?status=ACTIVE`, { token: tokens[role] });
    expect(byStatus.status).toBe(403);
    const byConnection = await api(t.url, 'GET', `${BASE}?qbConnectionStatus=connected`, {
      token: tokens[role],
    });
    // The MODERATOR reads the connection status, so may filter on it.
    expect(byConnection.status).toBe(role === 'MODERATOR' ? 200 : 403);
    const admin = await api(t.url, 'GET', `${BASE}?search=ledger.test&status=ACTIVE`, {
      token: tokens.ADMIN,
    });
    expect(admin.body.data.map((c: { id: number }) => c.id)).toEqual([companyId]);
  });
});

describe('GraphQL: a company as each role reads it', () => {
  it('classifies every field of the Company type: id and name, or in the table above', async () => {
    const r = await gql(t.url, '{ __type(name: "Company") { fields { name } } }', {}, tokens.ADMIN);
    const fields = r.data.__type.fields.map((f: { name: string }) => f.name).sort();
    expect(fields).toEqual(['id', 'name', ...SENSITIVE.map(([f]) => f)].sort());
  });

  it.each(SENSITIVE)('the ADMIN reads %s', async (field, selection) => {
    for (const r of await gqlReads(selection, tokens.ADMIN)) {
      expect(r.errors, field).toBeUndefined();
      const c = companyOf(r.data);
      expect(c?.[field], field).not.toBeNull();
      expect(c?.[field], field).not.toBeUndefined();
    }
  });

  it.each(CASES)('a %s is refused %s', async (role, field, selection) => {
    for (const r of await gqlReads(selection, tokens[role])) {
      const error = r.errors?.[0] as { path?: Array<string | number>; extensions?: { code?: string } };
      expect(error?.extensions?.code, field).toBe('FORBIDDEN');
      expect(error?.path?.at(-1), field).toBe(field);
      // A nullable field answers null beside its error; a non-null one takes its parents with it.
      const c = companyOf(r.data);
      if (c) expect(c[field], field).toBeNull();
      else expect(r.data, field).toBeNull();
    }
  });

  it.each(LOWER)('a %s reads id and name (a MODERATOR the connection status too)', async (role) => {
    const selection = role === 'MODERATOR' ? 'qbConnectionStatus' : '';
    for (const r of await gqlReads(selection, tokens[role])) {
      expect(r.errors).toBeUndefined();
      const c = companyOf(r.data);
      expect(c).toEqual({
        id: companyId,
        name: 'Ledger Privacy Co',
        ...(role === 'MODERATOR' ? { qbConnectionStatus: 'connected' } : {}),
      });
    }
  });

  it.each(LOWER)('a %s’s live company pushes carry no more than its reads', async (role) => {
    const pushes = (token: string, selection: string) => {
      const got: any[] = [];
      const client = socketClient(t.url, token);
      const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
      client.subscribe(
        { query: `subscription { companyChanged { id company { id name ${selection} } } }` },
        { next: (v) => got.push(v), error: (e) => got.push({ errors: e }), complete: () => {} },
      );
      return { client, got, connected };
    };
    // The ADMIN's push and the lower role's come from one read per change: neither may shape the other's.
    const admin = pushes(tokens.ADMIN, 'companyTaxId processor { email }');
    const lower = pushes(tokens[role], '');
    const probing = pushes(tokens[role], 'companyTaxId');
    await Promise.all([admin.connected, lower.connected, probing.connected]);
    await new Promise((r) => setTimeout(r, 200));
    // A change each run: another payment account (one of the realm's two bank accounts).
    const edit = await api(t.url, 'PUT', `${BASE}/${companyId}/payment-account`, {
      body: { qbPaymentAccountReference: role === 'MODERATOR' ? '1' : '2' },
      token: tokens.ADMIN,
    });
    expect(edit.status).toBe(200);
    await expect.poll(() => admin.got.length + lower.got.length, { timeout: 10_000 }).toBeGreaterThan(1);
    await expect.poll(() => probing.got.length, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(admin.got[0].data.companyChanged.company.companyTaxId).toBe(SECRETS.taxId);
    expect(lower.got[0]).toEqual({
      data: { companyChanged: { id: companyId, company: { id: companyId, name: 'Ledger Privacy Co' } } },
    });
    const probed = JSON.stringify(probing.got);
    expect(probed).toContain('FORBIDDEN');
    for (const [name, value] of Object.entries(SECRETS)) {
      expect(JSON.stringify(lower.got), name).not.toContain(value);
      expect(probed, name).not.toContain(value);
    }
    for (const s of [admin, lower, probing]) await s.client.dispose();
  });
});

describe('QuickBooks: company info, bank balances and token status are the ADMIN’s', () => {
  it('the ADMIN reads the bank accounts with their balances, and the token status', async () => {
    const rest = await api(t.url, 'GET', `/api/quickbooks/${companyId}/company-info`, {
      token: tokens.ADMIN,
    });
    expect(rest.status).toBe(200);
    expect(rest.body.data.QueryResponse.Account[0]).toHaveProperty('CurrentBalance');
    expect(rest.body.data.CompanyInfo).not.toBeNull();
    const graph = await gql(
      t.url,
      'query($id: Int!) { qbBankAccounts(companyId: $id) { Id CurrentBalance } qbTokenStatus(companyId: $id) { hasTokens } }',
      { id: companyId },
      tokens.ADMIN,
    );
    expect(graph.errors).toBeUndefined();
    expect(graph.data.qbBankAccounts.length).toBeGreaterThan(0);
    expect(graph.data.qbTokenStatus.hasTokens).toBe(true);
    const status = await api(t.url, 'GET', `${BASE}/${companyId}/qb-token-status`, { token: tokens.ADMIN });
    expect(status.status).toBe(200);
  });

  it.each(LOWER)(
    'a %s is refused company-info and qbBankAccounts (balances), and the token status',
    async (role) => {
      const token = tokens[role];
      const info = await api(t.url, 'GET', `/api/quickbooks/${companyId}/company-info`, { token });
      expect(info.status).toBe(403);
      expect(JSON.stringify(info.body)).not.toContain('CurrentBalance');
      const accounts = await gql(
        t.url,
        'query($id: Int!) { qbBankAccounts(companyId: $id) { Id Name CurrentBalance } }',
        { id: companyId },
        token,
      );
      expect(accounts.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(accounts.data).toBeNull();
      const status = await api(t.url, 'GET', `${BASE}/${companyId}/qb-token-status`, { token });
      expect(status.status).toBe(403);
      const graphStatus = await gql(
        t.url,
        'query($id: Int!) { qbTokenStatus(companyId: $id) { hasTokens expiresIn } }',
        { id: companyId },
        token,
      );
      expect(graphStatus.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    },
  );
});

describe('the approval detail’s company block', () => {
  it('a USER reads an approval’s company as its id and name, nothing more', async () => {
    const bills = await api(t.url, 'GET', `/api/bill-approval/bills?companyId=${companyId}`, {
      token: tokens.MODERATOR,
    });
    expect(bills.status).toBe(200);
    const open = (bills.body.data as Array<{ id: string; inOpenApproval: boolean }>).filter(
      (b) => !b.inOpenApproval,
    );
    expect(open.length).toBeGreaterThan(0);
    const created = await api(t.url, 'POST', '/api/bill-approval/approvals', {
      body: { companyId, billIds: [open[0].id], priority: 'LOW', confirmDuplicates: [open[0].id] },
      token: tokens.MODERATOR,
    });
    expect(created.status).toBe(201);
    const detail = await api(t.url, 'GET', `/api/bill-approval/approvals/${created.body.data.id}`, {
      token: tokens.USER,
    });
    expect(detail.status).toBe(200);
    expect(detail.body.data.company).toEqual({ id: companyId, name: 'Ledger Privacy Co' });
    const text = JSON.stringify(detail.body.data);
    for (const [name, value] of Object.entries(SECRETS)) expect(text, name).not.toContain(value);
  });
});

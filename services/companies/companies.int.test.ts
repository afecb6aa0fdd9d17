// Companies over REST and GraphQL against a real gateway: the role matrix, the form's
// and the NACHA form's rules on the server, unique names among active companies, assignments from
// the right people, and no bank account number in plain text in the log or the read model.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';

let t: TestApp;
const tokens = { ADMIN: '', MODERATOR: '', USER: '', GUEST: '' };
const ids: Record<string, number> = {};
const PASSWORD = 'Passw0rd-123';
const BASE = '/api/company/companies';

async function createUser(email: string, role: string) {
  const r = await api(t.url, 'POST', '/api/auth/register', {
    body: { email, password: PASSWORD, role, firstName: 'Pat', lastName: role },
    token: tokens.ADMIN,
  });
  expect(r.status).toBe(201);
  return r.body.data.id as number;
}

const create = (body: Record<string, unknown>) => api(t.url, 'POST', BASE, { body, token: tokens.ADMIN });
const nacha = (over: Record<string, unknown> = {}) => ({
  bankRoutingNumber: '021-000-021',
  bankAccountNumber: '000123456789',
  bankAccountType: 'checking',
  bankName: 'Chase',
  companyTaxId: '12-3456789',
  immediateDestinationName: 'jpmorgan chase',
  ...over,
});

async function sql<T = any>(text: string, values: unknown[] = []): Promise<T[]> {
  const pool = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 1 });
  try {
    return (await pool.query(text, values)).rows as T[];
  } finally {
    await pool.end();
  }
}

beforeAll(async () => {
  t = await startTestApp();
  tokens.ADMIN = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  for (const role of ['MODERATOR', 'USER', 'GUEST'] as const) {
    ids[role] = await createUser(`${role.toLowerCase()}@companies.test`, role);
    tokens[role] = (await signIn(t.url, `${role.toLowerCase()}@companies.test`, PASSWORD)).tokens.accessToken;
  }
  const m = await api(t.url, 'POST', '/api/manager/managers', {
    body: { firstName: 'Mia', lastName: 'Ross', email: 'mia@example.com' },
    token: tokens.ADMIN,
  });
  ids.manager = m.body.data.id;
});
afterAll(async () => {
  await t?.stop();
});

describe('companies', () => {
  it('creates a company with assignees and shows them by name; empty optional fields are absent', async () => {
    const r = await create({
      name: '  Acme Corp ',
      email: 'AP@Acme.com',
      website: '',
      industry: 'Retail',
      managerId: ids.manager,
      processorId: ids.USER,
      approverId: String(ids.MODERATOR),
      accountantId: null,
    });
    expect(r.status).toBe(201);
    expect(r.body.message).toBe('Company created successfully');
    expect(r.body.data).toMatchObject({
      name: 'Acme Corp',
      email: 'ap@acme.com',
      website: null,
      status: 'ACTIVE',
      isActive: true,
      managerId: ids.manager,
      manager: { firstName: 'Mia', lastName: 'Ross' },
      processor: { id: ids.USER },
      approver: { id: ids.MODERATOR },
      accountant: null,
      qbRealmId: null,
      nachaConfigured: false,
    });
    ids.acme = r.body.data.id;
    // The dashboard's total and the users' statistics count it.
    const stats = await api(t.url, 'GET', '/api/dashboard/stats', { token: tokens.ADMIN });
    expect(stats.body.data.totalCompanies).toBe(1);
    const userStats = await api(t.url, 'GET', `/api/user/statistics?userId=${ids.USER}`, {
      token: tokens.ADMIN,
    });
    expect(userStats.body.data.companiesManaged).toBe(1);
  });

  it('refuses the form’s invalid input with its texts, and an assignee of the wrong kind; nothing is created', async () => {
    const before = await sql(`SELECT count(*)::int AS n FROM companies`);
    const bad = await create({ name: ' ', email: 'nope', website: 'ftp//x', industry: 'Mining' });
    expect(bad.status).toBe(400);
    const messages = Object.fromEntries(bad.body.errors!.map((e) => [e.field, e.message]));
    expect(messages).toMatchObject({
      name: 'Company name is required',
      email: 'Invalid email address',
      website: 'Invalid website URL',
    });
    expect((await create({ name: 'x'.repeat(256) })).body.errors?.[0].message).toBe('Name is too long');
    const guest = await create({ name: 'Guest Co', processorId: ids.GUEST });
    expect(guest.status).toBe(400);
    expect(guest.body.errors?.[0]).toEqual({
      field: 'processorId',
      message: 'Only an ADMIN, MODERATOR or USER can be assigned',
    });
    expect((await create({ name: 'Ghost Co', managerId: 999_999 })).body.errors?.[0].message).toBe(
      'Manager not found',
    );
    expect(await sql(`SELECT count(*)::int AS n FROM companies`)).toEqual(before);
    // The refused creates left no name behind.
    expect((await create({ name: 'Guest Co' })).status).toBe(201);
  });

  it('keeps names unique among active companies: refused while active, free once deactivated', async () => {
    const dup = await create({ name: 'ACME   corp' });
    expect(dup.status).toBe(409);
    expect(dup.body.error ?? dup.body.message).toMatch(/already exists/);
    const off = await api(t.url, 'PUT', `${BASE}/${ids.acme}/deactivate`, { token: tokens.ADMIN });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ status: 'INACTIVE', isActive: false });
    const second = await create({ name: 'Acme Corp' });
    expect(second.status).toBe(201);
    const back = await api(t.url, 'PUT', `${BASE}/${ids.acme}/reactivate`, { token: tokens.ADMIN });
    expect(back.status).toBe(409);
    await api(t.url, 'DELETE', `${BASE}/${second.body.data.id}`, { token: tokens.ADMIN });
    const again = await api(t.url, 'PUT', `${BASE}/${ids.acme}/reactivate`, { token: tokens.ADMIN });
    expect(again.status).toBe(200);
    expect(again.body.message).toBe('Company activated successfully');
  });

  it('lists with search, status and connection filters and paging', async () => {
    await create({ name: 'Zeta Widgets', email: 'hello@zeta.test' });
    const inactive = await create({ name: 'Omega Supplies' });
    await api(t.url, 'PUT', `${BASE}/${inactive.body.data.id}/deactivate`, { token: tokens.ADMIN });
    const search = await api(t.url, 'GET', `${BASE}?search=zeta.TEST`, { token: tokens.ADMIN });
    expect(search.body.data.map((c: { name: string }) => c.name)).toEqual(['Zeta Widgets']);
    const off = await api(t.url, 'GET', `${BASE}?status=INACTIVE`, { token: tokens.ADMIN });
    expect(off.body.data.map((c: { name: string }) => c.name)).toEqual(['Omega Supplies']);
    const notConnected = await api(t.url, 'GET', `${BASE}?qbConnectionStatus=not_connected&limit=2&page=1`, {
      token: tokens.ADMIN,
    });
    expect(notConnected.body.data).toHaveLength(2);
    expect(notConnected.body.meta.pagination).toMatchObject({ page: 1, limit: 2 });
    expect(notConnected.body.meta.pagination.totalPages).toBeGreaterThanOrEqual(2);
    const connected = await api(t.url, 'GET', `${BASE}?qbConnectionStatus=connected`, {
      token: tokens.ADMIN,
    });
    expect(connected.body.data).toEqual([]);
    const q = await api(t.url, 'GET', `${BASE}/search?q=omega`, { token: tokens.ADMIN });
    expect(q.body.data.map((c: { name: string }) => c.name)).toEqual(['Omega Supplies']);
    expect((await api(t.url, 'GET', `${BASE}?status=GONE`, { token: tokens.ADMIN })).status).toBe(400);
  });

  it('updates the form (absent details cleared, absent assignments kept), renames, and changes one assignment inline', async () => {
    const put = await api(t.url, 'PUT', `${BASE}/${ids.acme}`, {
      body: { name: 'Acme Holdings', phone: '555-0101', managerId: ids.manager, approverId: null },
      token: tokens.ADMIN,
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({
      name: 'Acme Holdings',
      email: null,
      industry: null,
      phone: '555-0101',
      processorId: ids.USER,
      approverId: null,
      managerId: ids.manager,
    });
    // The old name is free again.
    const reuse = await create({ name: 'Acme Corp' });
    expect(reuse.status).toBe(201);
    const inline = await api(t.url, 'PUT', `${BASE}/${ids.acme}/assignments`, {
      body: { accountantId: ids.MODERATOR },
      token: tokens.ADMIN,
    });
    expect(inline.status).toBe(200);
    expect(inline.body.data).toMatchObject({ accountantId: ids.MODERATOR, managerId: ids.manager });
    const wrong = await api(t.url, 'PUT', `${BASE}/${ids.acme}/assignments`, {
      body: { approverId: ids.GUEST },
      token: tokens.ADMIN,
    });
    expect(wrong.status).toBe(400);
  });

  it('saves NACHA settings with the server-side rules, defaults and the account number masked', async () => {
    const invalid = await api(t.url, 'PUT', `${BASE}/${ids.acme}/nacha-config`, {
      body: nacha({
        bankRoutingNumber: '021000022',
        companyTaxId: '12-345',
        achCompanyId: '123',
        bankAccountType: 'cash',
        immediateDestinationName: 'x'.repeat(24),
      }),
      token: tokens.ADMIN,
    });
    expect(invalid.status).toBe(400);
    const messages = Object.fromEntries(invalid.body.errors!.map((e) => [e.field, e.message]));
    expect(messages).toMatchObject({
      bankRoutingNumber: 'Routing number is not valid (check digit)',
      companyTaxId: 'Tax ID must be in format XX-XXXXXXX (9 digits total)',
      achCompanyId: 'ACH company ID must be exactly 10 digits',
      bankAccountType: 'Please select an account type',
      immediateDestinationName: 'Immediate destination name must be at most 23 characters',
    });
    const short = await api(t.url, 'PUT', `${BASE}/${ids.acme}/nacha-config`, {
      body: nacha({ bankRoutingNumber: '0210000' }),
      token: tokens.ADMIN,
    });
    expect(short.body.errors?.[0].message).toBe('Routing number must be exactly 9 digits');
    const ok = await api(t.url, 'PUT', `${BASE}/${ids.acme}/nacha-config`, {
      body: nacha(),
      token: tokens.ADMIN,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({
      nachaConfigured: true,
      bankRoutingNumber: '021000021',
      bankAccountNumber: '********6789',
      companyTaxId: '123456789',
      originatorStatusCode: '1',
      immediateDestinationName: 'JPMORGAN CHASE',
      immediateOriginName: 'ACME HOLDINGS',
      companyEntryDescription: 'BILL PAY',
      balancedFile: false,
    });
    // Sent back masked, the stored number stays; nowhere is it plain.
    const again = await api(t.url, 'PUT', `${BASE}/${ids.acme}/nacha-config`, {
      body: nacha({ bankAccountNumber: '********6789', bankName: 'Chase NA' }),
      token: tokens.ADMIN,
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ bankName: 'Chase NA', bankAccountNumber: '********6789' });
    const events = await sql<{ d: string }>(`SELECT data::text AS d FROM es_events WHERE stream_id = $1`, [
      `company-${ids.acme}`,
    ]);
    expect(events.map((e) => e.d).join()).not.toContain('000123456789');
    const rows = await sql<{ d: string }>(`SELECT row_to_json(c)::text AS d FROM companies c`);
    expect(rows.map((r) => r.d).join()).not.toContain('000123456789');
  });

  it('deletes a company: gone from lists and reads, its history kept', async () => {
    const c = await create({ name: 'Doomed LLC' });
    const id = c.body.data.id;
    const del = await api(t.url, 'DELETE', `${BASE}/${id}`, { token: tokens.ADMIN });
    expect(del.body.message).toBe('Company deleted successfully');
    expect((await api(t.url, 'GET', `${BASE}/${id}`, { token: tokens.ADMIN })).status).toBe(404);
    const list = await api(t.url, 'GET', `${BASE}?limit=100`, { token: tokens.ADMIN });
    expect(list.body.data.map((x: { id: number }) => x.id)).not.toContain(id);
    const events = await sql(
      `SELECT event_type FROM es_events WHERE stream_id = $1 ORDER BY stream_version`,
      [`company-${id}`],
    );
    expect(events.map((e) => e.event_type)).toEqual(['CompanyCreated', 'CompanyDeleted']);
  });

  it('answers the same through GraphQL', async () => {
    const created = await gql(
      t.url,
      'mutation($i: CompanyInput!) { createCompany(input: $i) { id name manager { email } } }',
      { i: { name: 'Graph Co', managerId: ids.manager, processorId: ids.USER } },
      tokens.ADMIN,
    );
    expect(created.errors).toBeUndefined();
    expect(created.data.createCompany.manager.email).toBe('mia@example.com');
    // The USER is its processor: staff list the companies they are assigned to.
    const list = await gql(t.url, '{ companies(search: "graph") { total data { name } } }', {}, tokens.USER);
    expect(list.data.companies).toEqual({ total: 1, data: [{ name: 'Graph Co' }] });
    const refused = await gql(
      t.url,
      'mutation($id: Int!) { deactivateCompany(id: $id) { id } }',
      { id: created.data.createCompany.id },
      tokens.MODERATOR,
    );
    expect(refused.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});

describe('role matrix: every Companies call, every role, and no token', () => {
  it('reads for ADMIN, MODERATOR and USER; writes for ADMIN only; GUEST and anonymous refused', async () => {
    // Staff read the companies they are assigned to (decision 0001; the scope has its own test below).
    const c = await create({ name: 'Matrix Inc', approverId: ids.MODERATOR, processorId: ids.USER });
    const id = c.body.data.id;
    const reads: Array<[string, string]> = [
      ['GET', BASE],
      ['GET', `${BASE}/${id}`],
      ['GET', `${BASE}/search?q=matrix`],
    ];
    const writes: Array<[string, string, unknown?]> = [
      ['POST', BASE, { name: 'Nobody Co' }],
      ['PUT', `${BASE}/${id}`, { name: 'Matrix Inc' }],
      ['PUT', `${BASE}/${id}/assignments`, { managerId: ids.manager }],
      // Cleared: a reference must be one of the company's QuickBooks bank accounts, and this
      // company is not connected (the check has its own test in quickbooks-connection-edges).
      ['PUT', `${BASE}/${id}/payment-account`, { qbPaymentAccountReference: null }],
      ['PUT', `${BASE}/${id}/nacha-config`, nacha()],
      ['PUT', `${BASE}/${id}/deactivate`],
      ['PUT', `${BASE}/${id}/reactivate`],
      ['DELETE', `${BASE}/${id}`],
    ];
    for (const [method, path] of reads) {
      for (const role of ['MODERATOR', 'USER'] as const)
        expect((await api(t.url, method, path, { token: tokens[role] })).status, `${role} ${path}`).toBe(200);
      expect((await api(t.url, method, path, { token: tokens.GUEST })).status, `GUEST ${path}`).toBe(403);
      expect((await api(t.url, method, path)).status, `anonymous ${path}`).toBe(401);
    }
    for (const [method, path, body] of writes) {
      for (const role of ['MODERATOR', 'USER', 'GUEST'] as const)
        expect(
          (await api(t.url, method, path, { body, token: tokens[role] })).status,
          `${role} ${method} ${path}`,
        ).toBe(403);
      expect((await api(t.url, method, path, { body })).status, `anonymous ${method} ${path}`).toBe(401);
    }
    const untouched = await api(t.url, 'GET', `${BASE}/${id}`, { token: tokens.ADMIN });
    expect(untouched.body.data).toMatchObject({ status: 'ACTIVE', managerId: null, nachaConfigured: false });
    for (const [method, path, body] of writes)
      expect(
        (await api(t.url, method, path, { body, token: tokens.ADMIN })).status,
        `ADMIN ${method} ${path}`,
      ).toBeLessThan(300);
  });
});

describe('staff scope: MODERATOR and USER read the companies they are assigned to (decision 0001)', () => {
  it('lists, finds and opens only their companies; an ADMIN reads every one', async () => {
    const mine = (await create({ name: 'Scope Mine Co', approverId: ids.MODERATOR, processorId: ids.USER }))
      .body.data.id as number;
    const other = (await create({ name: 'Scope Other Co' })).body.data.id as number;
    for (const role of ['MODERATOR', 'USER'] as const) {
      const token = tokens[role];
      const listed = (await api(t.url, 'GET', `${BASE}?search=scope&limit=100`, { token })).body.data.map(
        (c: { id: number }) => c.id,
      );
      expect(listed, role).toEqual([mine]);
      const found = (await api(t.url, 'GET', `${BASE}/search?q=scope`, { token })).body.data.map(
        (c: { id: number }) => c.id,
      );
      expect(found, role).toEqual([mine]);
      expect((await api(t.url, 'GET', `${BASE}/${mine}`, { token })).status, role).toBe(200);
      const hidden = await api(t.url, 'GET', `${BASE}/${other}`, { token });
      expect(hidden.status, role).toBe(404);
      expect(hidden.body.message).toBe('Company not found');
      const g = await gql(t.url, 'query($id: Int!) { company(id: $id) { id name } }', { id: other }, token);
      expect(g.errors?.[0]?.extensions?.code, role).toBe('NOT_FOUND');
    }
    const all = (await api(t.url, 'GET', `${BASE}?search=scope&limit=100`, { token: tokens.ADMIN })).body
      .data;
    expect(all.map((c: { id: number }) => c.id).sort()).toEqual([mine, other].sort());
    // Assigning the USER opens the company to them at the next request.
    await api(t.url, 'PUT', `${BASE}/${other}/assignments`, {
      body: { accountantId: ids.USER },
      token: tokens.ADMIN,
    });
    expect((await api(t.url, 'GET', `${BASE}/${other}`, { token: tokens.USER })).status).toBe(200);
  });
});

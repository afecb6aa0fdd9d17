// Invisible (format) characters in typed text, through the REST adapter: a name
// that differs from a taken one only by them is taken, and a value made only of them is blank.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';

let t: TestApp;
let admin = '';

beforeAll(async () => {
  t = await startTestApp();
  admin = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
});
afterAll(async () => {
  await t?.stop();
});

const createCompany = (name: string) =>
  api(t.url, 'POST', '/api/company/companies', { token: admin, body: { name } });

describe('invisible characters in names', () => {
  it('a company name with a zero-width space, soft hyphen or BOM is the same name', async () => {
    const first = await createCompany('Invisible Acme');
    expect(first.status).toBe(201);
    for (const name of [
      'Invisible Acme\u200B',
      '\uFEFFInvisible Acme',
      'Invisible Ac\u00ADme',
      'Invis\u200Bible Acme',
    ]) {
      const dup = await createCompany(name);
      expect(dup.status, JSON.stringify(name)).toBe(409);
      expect(dup.body.error ?? dup.body.message).toMatch(/already exists/);
    }
    const renamed = await createCompany('Other Co');
    const clash = await api(t.url, 'PUT', `/api/company/companies/${renamed.body.data.id}`, {
      token: admin,
      body: { name: 'invisible acme\u2060' },
    });
    expect(clash.status).toBe(409);
  });

  it('a company name made only of invisible characters is blank, and edges are stored trimmed', async () => {
    const blank = await createCompany('\u200B\u200C\u00AD');
    expect(blank.status).toBe(400);
    expect(blank.body.errors?.[0]).toMatchObject({ field: 'name', message: 'Company name is required' });
    const edged = await createCompany('\u200BEdge Co\u200B');
    expect(edged.status).toBe(201);
    expect(edged.body.data.name).toBe('Edge Co');
  });
});

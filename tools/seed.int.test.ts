// The demo data `npm start` leaves: made through the product's own commands, and only once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../test/support/app.js';
import { api, signIn } from '../test/support/http.js';
import { seedDemoData } from './seed.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

describe('demo data', () => {
  it('adds the demo users and three managers, one linked to the demo USER, and a second run adds nothing', async () => {
    const demo = await seedDemoData(t.started.app);
    await seedDemoData(t.started.app);
    expect(demo.map((u) => u.role)).toEqual(['MODERATOR', 'USER', 'GUEST']);
    const token = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
    const list = await api(t.url, 'GET', '/api/manager/managers?limit=10', { token });
    expect(list.status).toBe(200);
    expect(list.body.meta.pagination.total).toBe(3);
    const linked = list.body.data.filter((m: { user: unknown }) => m.user !== null);
    expect(linked).toHaveLength(1);
    expect(linked[0]).toMatchObject({
      firstName: 'Dana',
      user: { email: 'uma.user@billflow.local', role: 'USER' },
    });
    // The demo users can sign in with the printed password.
    const uma = await signIn(t.url, 'uma.user@billflow.local', demo[1].password);
    expect(uma.user.role).toBe('USER');
  });
});

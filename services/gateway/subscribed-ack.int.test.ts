// Over the real gateway: a subscription that asked is told when it is live, and a change made the
// moment after is pushed (the web's screens re-read on that message; see subscribed-ack.ts). One
// that did not ask sees the change as its first message, as before; one refused gets no word.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, signIn } from '../../test/support/http.js';
import { socketClient } from '../../test/support/socket.js';

let t: TestApp;
let token: string;
let companyId: number;

beforeAll(async () => {
  t = await startTestApp();
  token = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  const c = await api(t.url, 'POST', '/api/company/companies', { body: { name: 'Ack Bakery' }, token });
  expect(c.status).toBe(201);
  companyId = c.body.data.id;
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

function listen(subscribedAck: boolean) {
  const messages: unknown[] = [];
  const client = socketClient(t.url, token);
  let onFirst: () => void = () => {};
  const first = new Promise<void>((resolve) => {
    onFirst = resolve;
  });
  client.subscribe(
    {
      query: `subscription { approvalPolicyChanged(companyId: ${companyId}) { companyId } }`,
      ...(subscribedAck ? { extensions: { subscribedAck: true } } : {}),
    },
    {
      next: (v) => {
        messages.push(v);
        onFirst();
      },
      error: () => {},
      complete: () => {},
    },
  );
  return { client, messages, first };
}

const setPolicy = (creatorMayNotApprove: boolean) =>
  api(t.url, 'PUT', `/api/bill-approval/policies/${companyId}`, {
    token,
    body: { creatorMayNotApprove, secondApprovalThreshold: null },
  });

it('asked: SUBSCRIBED first, then the change made right after it', async () => {
  const l = listen(true);
  await l.first;
  expect(l.messages).toEqual([{ data: null, extensions: { subscribed: true } }]);
  // The default policy has the creator rule on: turning it off is a change.
  expect((await setPolicy(false)).status).toBe(200);
  await expect.poll(() => l.messages.length, { timeout: 10_000 }).toBe(2);
  expect(l.messages[1]).toEqual({ data: { approvalPolicyChanged: { companyId } } });
  await l.client.dispose();
});

it('not asked: the change is the first message', async () => {
  const l = listen(false);
  // No message tells this client when it is live: change the policy until a change reaches it.
  let creatorRule = false;
  await expect
    .poll(
      async () => {
        creatorRule = !creatorRule;
        expect((await setPolicy(creatorRule)).status).toBe(200);
        return l.messages.length;
      },
      { timeout: 10_000, interval: 200 },
    )
    .toBeGreaterThan(0);
  expect(l.messages[0]).toEqual({ data: { approvalPolicyChanged: { companyId } } });
  await l.client.dispose();
});

it('refused: a caller without the permission gets the error, never the word', async () => {
  const reg = await api(t.url, 'POST', '/api/auth/register', {
    token,
    body: { email: 'ack.user@billflow.test', password: 'Passw0rd-123', role: 'USER' },
  });
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  const userToken = (await signIn(t.url, 'ack.user@billflow.test', 'Passw0rd-123')).tokens.accessToken;
  const client = socketClient(t.url, userToken);
  const seen = await new Promise<unknown[]>((resolve) => {
    const got: unknown[] = [];
    client.subscribe(
      { query: 'subscription { operationsChanged { redis } }', extensions: { subscribedAck: true } },
      {
        next: (v) => got.push(v),
        error: (e) => resolve([...got, { error: e }]),
        complete: () => resolve(got),
      },
    );
  });
  expect(JSON.stringify(seen)).not.toContain('subscribed');
  expect(JSON.stringify(seen)).toMatch(/Not authorized/);
  await client.dispose();
});

// Over the real gateway: a subscription that asked is told when it is live, and a change made the
// moment after is pushed (the web's screens re-read on that message; see subscribed-ack.ts). One
// that did not ask sees the change as its first message, as before.
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

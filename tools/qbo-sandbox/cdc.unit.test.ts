// Change Data Capture as Intuit answers it: what changed since a time, grouped by
// entity in order of last update, deleted objects after the live ones as `{"status":"Deleted","Id"}`,
// at most 30 days back. The test hooks that change vendors and bills move LastUpdatedTime on.
import OAuthClient from 'intuit-oauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantFromConsent } from './connect.js';
import { type QboSandbox, startQboSandbox } from './server.js';

let sim: QboSandbox;
const client = { clientId: 'cdc-app', clientSecret: 'cdc-secret' };
const redirectUri = 'http://127.0.0.1:9/callback';
let realmId: string;
let token: string;

beforeAll(async () => {
  OAuthClient.retryConfig.maxRetries = 0;
  sim = await startQboSandbox({ clients: [client] });
  ({ realmId, accessToken: token } = await grantFromConsent(sim.url, client, redirectUri));
});
afterAll(async () => {
  await sim?.close();
});

const cdc = async (since: string, entities = 'Vendor,Bill') => {
  const r = await fetch(
    `${sim.url}/v3/company/${realmId}/cdc?entities=${entities}&changedSince=${encodeURIComponent(since)}`,
    { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
  );
  return { status: r.status, body: await r.json() };
};
const post = (path: string, body: unknown) =>
  fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('simulator CDC', () => {
  it('answers changes since a time, a deleted bill as status Deleted, and refuses more than 30 days back', async () => {
    const realm = sim.realms().find((r) => r.realmId === realmId)!;
    // Everything seeded is a change since before the seed.
    const all = await cdc(new Date(Date.now() - 86_400_000).toISOString());
    expect(all.status).toBe(200);
    const groups = all.body.CDCResponse[0].QueryResponse;
    expect(groups.map((g: Record<string, unknown>) => Object.keys(g).find((k) => /^[A-Z]/.test(k)))).toEqual([
      'Vendor',
      'Bill',
    ]);
    expect(typeof all.body.time).toBe('string');
    const mark = all.body.time as string;
    await new Promise((r) => setTimeout(r, 5));
    expect((await cdc(mark)).body.CDCResponse[0].QueryResponse).toMatchObject([{ Vendor: [] }, { Bill: [] }]);
    const vendor = realm.vendors.find((v) => v.Active)!;
    const bill = realm.bills[0];
    expect(
      (await post('/__sim/vendors/update', { realmId, vendorId: vendor.Id, active: false })).status,
    ).toBe(200);
    expect((await post('/__sim/bills/delete', { realmId, billId: bill.Id })).status).toBe(200);
    const changed = (await cdc(mark)).body.CDCResponse[0].QueryResponse;
    expect(changed[0].Vendor).toHaveLength(1);
    expect(changed[0].Vendor[0]).toMatchObject({ Id: vendor.Id, Active: false });
    // A deleted object carries its Id, the status and when; not its payload.
    expect(changed[1].Bill.filter((b: { Id: string }) => b.Id === bill.Id)).toEqual([
      { status: 'Deleted', domain: 'QBO', Id: bill.Id, MetaData: { LastUpdatedTime: expect.any(String) } },
    ]);
    // The deleted bill is gone from queries.
    const q = await fetch(
      `${sim.url}/v3/company/${realmId}/query?query=${encodeURIComponent(`select * from Bill where Id = '${bill.Id}'`)}`,
      { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
    );
    expect((await q.json()).QueryResponse.Bill ?? []).toEqual([]);
    const old = await cdc(new Date(Date.now() - 31 * 86_400_000).toISOString());
    expect(old.status).toBe(400);
  });
});

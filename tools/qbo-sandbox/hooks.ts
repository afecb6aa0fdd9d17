// The test hooks under /__sim: reset, fault rules, the request log, the clock, a rotated app
// secret, expired tokens, and changes a person makes in QuickBooks (a bill deleted or its balance
// changed, a vendor changed).
import type { FastifyInstance } from 'fastify';
import type { SandboxState } from './state.js';
import type { FaultRule } from './types.js';

export function registerTestHooks(server: FastifyInstance, sim: SandboxState) {
  const { now, clients } = sim;
  server.post('/__sim/reset', async () => {
    sim.reset();
    return { ok: true };
  });
  server.post('/__sim/faults', async (req) => {
    const b = (req.body ?? {}) as { rules?: FaultRule[]; clear?: boolean };
    if (b.clear) sim.faults = [];
    for (const r of b.rules ?? []) sim.faults.push({ ...r, used: 0 });
    return { rules: sim.faults.length };
  });
  server.get('/__sim/requests', async () => ({ requests: sim.log }));
  server.post('/__sim/clock', async (req) => {
    const b = (req.body ?? {}) as { offsetSeconds?: number; advanceSeconds?: number };
    if (b.offsetSeconds !== undefined) sim.clockOffsetMs = b.offsetSeconds * 1000;
    if (b.advanceSeconds !== undefined) sim.clockOffsetMs += b.advanceSeconds * 1000;
    return { now: new Date(now()).toISOString() };
  });
  /** Ends every access token of a realm (or all), as if their hour had passed. */
  /**
   * The app's secret is rotated in Intuit's developer portal: the token endpoint answers the old one
   * with `invalid_client` (RFC 6749 §5.2; reference/quickbooks.md §6), while the company's grant and
   * tokens stay valid.
   */
  server.post('/__sim/clients/secret', async (req, reply) => {
    const b = (req.body ?? {}) as { clientId?: string; clientSecret?: string };
    const c = b.clientId ? clients.get(b.clientId) : undefined;
    if (!c || !b.clientSecret) return reply.status(404).send({ error: 'no such client' });
    c.clientSecret = b.clientSecret;
    return { ok: true };
  });
  server.post('/__sim/expire-tokens', async (req) => {
    const realmId = ((req.body ?? {}) as { realmId?: string }).realmId;
    let n = 0;
    for (const t of sim.access.values())
      if (!realmId || t.grant.realmId === realmId) {
        t.expiresAt = now() - 1;
        n++;
      }
    return { expired: n };
  });
  server.get('/__sim/realms', async () => ({
    realms: [...sim.realms.values()].map((r) => ({
      realmId: r.realmId,
      name: r.info.CompanyName,
      bills: r.bills.length,
      vendors: r.vendors.length,
    })),
  }));
  /**
   * A vendor changed in QuickBooks as a person does on its page: made inactive (or active again;
   * deleting a vendor in QuickBooks makes it inactive) or renamed. SyncToken and LastUpdatedTime move on.
   */
  /**
   * A bill deleted in QuickBooks: gone from queries and reads, and answered by CDC as
   * `{"status":"Deleted","Id":…}` for 30 days (README: change data capture).
   */
  server.post('/__sim/bills/delete', async (req, reply) => {
    const b = (req.body ?? {}) as { realmId?: string; billId?: string };
    const realm = sim.realms.get(String(b.realmId));
    const at = realm ? realm.bills.findIndex((x) => x.Id === String(b.billId)) : -1;
    if (!realm || at < 0)
      return reply.status(400).send({ error: 'realmId and billId of a bill are required' });
    const [bill] = realm.bills.splice(at, 1);
    realm.deleted = [
      ...(realm.deleted ?? []).filter(
        (d) => Date.parse(d.MetaData.LastUpdatedTime) >= now() - 30 * 86_400_000,
      ),
      { entity: 'Bill', Id: bill.Id, MetaData: { LastUpdatedTime: new Date(now()).toISOString() } },
    ];
    return { deleted: bill.Id };
  });
  /**
   * A bill's open balance changed in QuickBooks after it was read (a line added raises it). Taken as
   * sent, a value that is not a number too: how a payment meets a balance it must not trust.
   */
  server.post('/__sim/bills/update', async (req, reply) => {
    const b = (req.body ?? {}) as { realmId?: string; billId?: string; balance?: unknown };
    const bill = sim.realms.get(String(b.realmId))?.bills.find((x) => x.Id === String(b.billId));
    if (!bill || !('balance' in b))
      return reply.status(400).send({ error: 'realmId, billId of a bill and balance are required' });
    bill.Balance = b.balance as number;
    bill.SyncToken = String(Number(bill.SyncToken) + 1);
    bill.MetaData = { ...bill.MetaData, LastUpdatedTime: new Date(now()).toISOString() };
    return { bill };
  });
  /** An account changed in QuickBooks: its balance (a person's entry, an overdraft) or made inactive. */
  server.post('/__sim/accounts/update', async (req, reply) => {
    const b = (req.body ?? {}) as {
      realmId?: string;
      accountId?: string;
      balance?: number;
      active?: boolean;
    };
    const account = sim.realms.get(String(b.realmId))?.accounts.find((a) => a.Id === String(b.accountId));
    if (!account)
      return reply.status(400).send({ error: 'realmId and accountId of an account are required' });
    if (typeof b.balance === 'number') {
      account.CurrentBalance = b.balance;
      account.CurrentBalanceWithSubAccounts = b.balance;
    }
    if (typeof b.active === 'boolean') account.Active = b.active;
    return { account };
  });
  server.post('/__sim/vendors/update', async (req, reply) => {
    const b = (req.body ?? {}) as {
      realmId?: string;
      vendorId?: string;
      active?: boolean;
      displayName?: string;
    };
    const realm = sim.realms.get(String(b.realmId));
    const vendor = realm?.vendors.find((v) => v.Id === String(b.vendorId));
    if (!vendor || !realm)
      return reply.status(400).send({ error: 'realmId and vendorId of a vendor are required' });
    if (typeof b.active === 'boolean') vendor.Active = b.active;
    if (typeof b.displayName === 'string' && b.displayName) {
      vendor.DisplayName = b.displayName;
      vendor.CompanyName = b.displayName;
      // QuickBooks shows a bill's vendor by its current name.
      for (const bill of realm.bills)
        if (bill.VendorRef.value === vendor.Id) {
          bill.VendorRef = { ...bill.VendorRef, name: b.displayName };
          // The change shows in CDC's bills too (a copy of open bills keeps the vendor's name).
          bill.MetaData = { ...bill.MetaData, LastUpdatedTime: new Date(now()).toISOString() };
        }
    }
    vendor.SyncToken = String(Number(vendor.SyncToken) + 1);
    vendor.MetaData = { ...vendor.MetaData, LastUpdatedTime: new Date(now()).toISOString() };
    return { vendor };
  });
}

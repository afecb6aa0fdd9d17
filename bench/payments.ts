import { fileURLToPath } from 'node:url';
import { ensureLocalServices, localSocketUrl, withDatabase } from '../tools/local-services.js';
import { connectOverHttp } from '../tools/qbo-sandbox/connect.js';
import { startQboSandbox } from '../tools/qbo-sandbox/server.js';
import { fmt, freshDatabase, type PartResult, partProcess, quick } from './common.js';
import { percentile } from './measure.js';
import { dropRedisPrefix, signInWhenReady, startRole } from './processes.js';
import { benchEnv } from './vendors.js';

const BILLS = 50;
const RUNS = quick ? 5 : 30;
const TARGET_MS = 2000;
const qbApp = { clientId: 'billflow-bench-pay', clientSecret: 'bench-pay-secret-0001' };

async function measure(): Promise<PartResult> {
  const services = await ensureLocalServices();
  const db = await freshDatabase(withDatabase(services.databaseUrl, 'postgres'), 'payments');
  const env = benchEnv(localSocketUrl(db.url) ?? db.url, services.redisUrl);
  const sim = await startQboSandbox({
    clients: [qbApp],
    billsPerRealm: BILLS * RUNS + 80,
    ratePerMinute: 100_000,
    concurrentPerRealm: 50,
  });
  const fullEnv = { ...env, QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url };
  const projector = await startRole('projector', fullEnv);
  const worker = await startRole('worker', fullEnv);
  const gateway = await startRole('gateway', fullEnv);
  const base = gateway.url!;
  try {
    let token = '';
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await r.json()) as any;
      if (r.status >= 300)
        throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json).slice(0, 300)}`);
      return json.data;
    };
    token = (await signInWhenReady(base, env.ADMIN_EMAIL, env.ADMIN_PASSWORD)).tokens.accessToken;
    const companyId = (await call('POST', '/api/company/companies', { name: 'Bench Payments' })).id as number;
    const { realmId } = await connectOverHttp({
      gatewayUrl: base,
      simUrl: sim.url,
      token,
      companyId,
      app: qbApp,
      realmIndex: 0,
    });
    // A company connected to QuickBooks pays only with a payment account (the books follow the bank):
    // its first active bank account.
    const bank = sim
      .realms()
      .find((r) => r.realmId === realmId)
      ?.accounts.find((a) => a.AccountType === 'Bank' && a.Active);
    if (!bank) throw new Error('the simulated realm has no active bank account');
    await call('PUT', `/api/company/companies/${companyId}/payment-account`, {
      qbPaymentAccountReference: bank.Id,
    });
    await call('PUT', `/api/bill-approval/policies/${companyId}`, {
      creatorMayNotApprove: false,
      secondApprovalThreshold: null,
      assignedStaffOnly: false,
    });
    // The bench pays the bank details it sets: with the company's control on (the default) each
    // would wait for a second person's approval, so it is turned off, on record.
    await call('PUT', `/api/vendors/banking-control/${companyId}`, {
      enabled: false,
      reason: 'The bench pays the bank details it sets',
    });
    await call('PUT', `/api/company/companies/${companyId}/nacha-config`, {
      bankRoutingNumber: '021000021',
      bankAccountNumber: '000123456789',
      bankAccountType: 'checking',
      bankName: 'Chase',
      companyTaxId: '12-3456789',
      immediateDestinationName: 'JPMORGAN CHASE',
      balancedFile: true,
    });
    const sync = await call('POST', '/api/vendors/sync', { companyId });
    for (let i = 0; i < 600; i++) {
      const s = await call('GET', `/api/vendors/sync/${sync.syncId}`);
      if (!['queued', 'running'].includes(s.status)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const vendors = await call('GET', `/api/vendors?companyId=${companyId}&limit=100`);
    for (const [i, v] of (vendors as Array<{ id: number }>).entries())
      await call('PUT', `/api/vendors/${v.id}/banking`, {
        routingNumber: '011000015',
        accountNumber: `5500${String(i).padStart(6, '0')}`,
        accountType: 'checking',
        bankName: 'BofA',
      });
    const candidates = (
      (await call('GET', `/api/bill-approval/bills?companyId=${companyId}`)) as Array<{
        id: string;
        inOpenApproval: boolean;
        possibleDuplicate: boolean;
        refusedReason: string | null;
        bankingReady: boolean;
      }>
    ).filter((b) => !b.inOpenApproval && !b.possibleDuplicate && !b.refusedReason && b.bankingReady);
    const samples: number[] = [];
    for (let run = 0; run < RUNS && (run + 1) * BILLS <= candidates.length; run++) {
      const billIds = candidates.slice(run * BILLS, (run + 1) * BILLS).map((b) => b.id);
      const id = (
        await call('POST', '/api/bill-approval/approvals', {
          companyId,
          billIds,
          recipients: ['payables@bench.test'],
        })
      ).id as string;
      const t0 = performance.now();
      await call('PUT', `/api/bill-approval/approvals/${id}/approve`, { approvedBills: billIds });
      for (;;) {
        const d = await call('GET', `/api/bill-approval/approvals/${id}`);
        if (d.nachaProcessingStatus === 'GENERATED') break;
        if (d.nachaProcessingStatus === 'FAILED')
          throw new Error(`generation failed: ${JSON.stringify(d.nachaProblems).slice(0, 300)}`);
        if (performance.now() - t0 > 30_000) throw new Error('no file after 30 s');
        await new Promise((r) => setTimeout(r, 10));
      }
      samples.push(performance.now() - t0);
    }
    if (samples.length === 0) throw new Error(`not enough open bills (${candidates.length})`);
    const sorted = [...samples].sort((a, b) => a - b);
    const p99 = percentile(sorted, 99);
    const p50 = percentile(sorted, 50);
    return {
      rows: [
        {
          figure: `approve → NACHA file generated, ${BILLS} bills, balances re-read from QuickBooks (${samples.length} approvals, p50 ${fmt(p50)} ms, max ${fmt(sorted.at(-1)!)} ms)`,
          value: `p99 ${fmt(p99)} ms`,
          target: `≤ ${fmt(TARGET_MS)} ms`,
          met: p99 <= TARGET_MS,
        },
      ],
      data: { payments: { bills: BILLS, runs: samples.length, p50, p99, samples } },
    };
  } finally {
    await gateway.stop();
    await worker.stop();
    await projector.stop();
    await sim.close();
    await dropRedisPrefix(services.redisUrl, env.REDIS_PREFIX).catch(() => {});
    await db.drop().catch(() => {});
    await services.stop();
  }
}

/** The part for run.ts: this file in a process of its own. */
export const paymentsPart = (): Promise<PartResult> =>
  partProcess('payments', fileURLToPath(import.meta.url), { args: quick ? ['--quick'] : [] });

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.env.BILLFLOW_QUIET = '1';
  measure().then(
    (result) => {
      for (const r of result.rows) process.stderr.write(`${r.figure}: ${r.value} (target ${r.target})\n`);
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (err) => {
      process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}

// Approvals: the approvals list over 100,000 approvals through GraphQL and through REST
// (25 rows, a status filter, newest first), the approval detail, and how fast a status change
// reaches an open list and its stat cards — through a running product (a projector and a gateway
// process, as deployed), measured from outside over HTTP and graphql-ws.
//
// The 100,000 approvals are appended to the log as the product's own events (sealed by the same
// store the product opens), as a replay would find them: creating them through the API would fetch
// 100,000 bills from QuickBooks, 500 a minute. The approvals whose status changes are made through
// the API, from the simulator's bills.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import '../services/modules/index.js';
import { approvalStreamId } from '../services/approvals/approval-decider.js';
import type { NewEvent } from '../services/eventstore/port.js';
import { openEventStore } from '../services/privacy/store.js';
import { createPool } from '../services/shared/db.js';
import { connectOverHttp } from '../tools/qbo-sandbox/connect.js';
import { startQboSandbox } from '../tools/qbo-sandbox/server.js';
import {
  type ApprovalFigures,
  BULK_BATCHES,
  CHANGES,
  type ListFigures,
  PRIORITIES,
  qbApp,
  STATUSES,
  syntheticBills,
} from './approvals-data.js';
import { cpuDelta, cpuSnapshot } from './cpu.js';
import { percentile, request } from './measure.js';
import { dropRedisPrefix, signInWhenReady, startRole } from './processes.js';
import { settle } from './settle.js';

export type { ApprovalFigures } from './approvals-data.js';

export async function benchApprovals(env: Record<string, string>, quick: boolean): Promise<ApprovalFigures> {
  const total = quick ? 10_000 : 100_000;
  // Enough open bills for CHANGES approvals of one bill each, all made through the API; QuickBooks'
  // 500 requests a minute would only slow the setup (each create reads the bills again).
  const sim = await startQboSandbox({
    clients: [qbApp],
    billsPerRealm: CHANGES + 40,
    ratePerMinute: 100_000,
  });
  const fullEnv = { ...env, QBO_OAUTH_BASE: sim.url, QBO_API_BASE: sim.url };
  // No worker: the jobs the approvals enqueue (expiry in 7 days, bill releases) would only add
  // churn to the measured window; the list, the detail and the pushes need none of them.
  const projector = await startRole('projector', fullEnv);
  const gateway = await startRole('gateway', fullEnv);
  const base = new URL(gateway.url!);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const pool = createPool({ connectionString: env.DATABASE_URL, max: 20 });
  const { store } = await openEventStore({ pool, encryptionKey: env.ENCRYPTION_KEY });
  try {
    const login = await signInWhenReady(base.href, env.ADMIN_EMAIL, env.ADMIN_PASSWORD);
    const token = login.tokens.accessToken;
    const adminId = login.user.id;
    const auth = { authorization: `Bearer ${token}` };
    const call = async (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => {
      const r = await request(
        agent,
        new URL(path, base),
        method,
        body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
        body === undefined ? undefined : JSON.stringify(body),
      );
      const json = JSON.parse(r.text);
      if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${json.message}`);
      return json;
    };
    /**
     * Each create reads the company's bills from QuickBooks, and Intuit allows one realm 10 requests
     * a second and 500 a minute: a burst of creates is told to wait ("try again in N s"), and waits,
     * as a client does. The waiting is set-up, not a figure.
     */
    const createWithinIntuitLimits = async (body: unknown): Promise<{ data: { id: string } }> => {
      for (;;) {
        try {
          return await call('POST', '/api/bill-approval/approvals', body);
        } catch (err) {
          const wait = /try again in (\d+) s/.exec(String(err));
          if (!wait) throw err;
          await new Promise((res) => setTimeout(res, Number(wait[1]) * 1000));
        }
      }
    };
    /** Waits until the read model and every consumer have reached the end of the log. */
    const caughtUp = async (approvals: number) => {
      const head = await store.headPosition();
      for (;;) {
        const r = await pool.query<{ behind: string }>(
          `SELECT count(*)::text AS behind FROM projection_checkpoints WHERE position < $1`,
          [head],
        );
        const n = await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM approvals');
        if (Number(r.rows[0].behind) === 0 && Number(n.rows[0].n) >= approvals) return;
        await new Promise((res) => setTimeout(res, 200));
      }
    };
    const company = (await call('POST', '/api/company/companies', { name: 'Bench Approvals Co' })).data;
    // One admin creates and approves here (the figures are speed, not policy): its company lets the
    // creator approve, an ADMIN's recorded choice like any other.
    await call('PUT', `/api/bill-approval/policies/${company.id}`, {
      creatorMayNotApprove: false,
      secondApprovalThreshold: null,
    });
    await connectOverHttp({
      gatewayUrl: gateway.url!,
      simUrl: sim.url,
      token,
      companyId: company.id,
      app: qbApp,
      realmIndex: 0,
    });
    const manager = (
      await call('POST', '/api/manager/managers', {
        firstName: 'Bench',
        lastName: 'Manager',
        email: 'bench.manager@bench.test',
      })
    ).data;

    // 1. The 100,000 approvals, as events: created over the last 90 days, four in ten still pending.
    const setupStarted = performance.now();
    const now = Date.now();
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      const approvalId = randomUUID();
      const at = new Date(now - 90 * 86_400_000 + Math.floor((i / total) * 90 * 86_400_000)).toISOString();
      const bills = syntheticBills(1 + (i % 3), i);
      const status = STATUSES[i % STATUSES.length];
      const events: NewEvent[] = [
        {
          id: randomUUID(),
          type: 'ApprovalCreated',
          data: {
            approvalId,
            companyId: company.id,
            priority: PRIORITIES[i % 4],
            managerId: i % 5 === 0 ? null : manager.id,
            createdBy: adminId,
            bills,
            vendorContacts: [],
            // Without a manager, a recipient: someone the payment's links go to (an approval with
            // neither is not approved).
            recipients: i % 5 === 0 ? ['payables@bench.test'] : [],
            confirmedDuplicates: [],
            expiresAt: new Date(now + 365 * 86_400_000).toISOString(),
            at,
          },
        },
      ];
      if (status === 'APPROVED')
        events.push({
          id: randomUUID(),
          type: 'ApprovalApproved',
          data: {
            approvalId,
            companyId: company.id,
            approvedBillIds: [bills[0].Id],
            byUserId: adminId,
            firstApprovedBy: null,
            at,
          },
        });
      if (status === 'REJECTED')
        events.push({
          id: randomUUID(),
          type: 'ApprovalRejected',
          data: { approvalId, companyId: company.id, reason: 'Not this month', byUserId: adminId, at },
        });
      if (status === 'EXPIRED')
        events.push({
          id: randomUUID(),
          type: 'ApprovalExpired',
          data: { approvalId, companyId: company.id, at },
        });
      writes.push(store.append(approvalStreamId(approvalId), events, 'no_stream'));
      if (writes.length >= 256) await Promise.all(writes.splice(0));
    }
    await Promise.all(writes);
    // The read models first take in the seeded log: a create answers from its read model (no answer
    // is built from the decider's state), so one made behind 100,000 unread events would wait out
    // its read-your-writes time and answer 503 "Saved…", as it would for a user.
    await caughtUp(total);

    // 2. A few real ones from the simulator's bills: the status changes are made on these.
    const candidates = (await call('GET', `/api/bill-approval/bills?companyId=${company.id}`)).data as Array<{
      id: string;
      inOpenApproval: boolean;
    }>;
    const billIds = candidates.filter((b) => !b.inOpenApproval).map((b) => b.id);
    const changes = quick ? 20 : CHANGES;
    const real: string[] = [];
    for (const billId of billIds.slice(0, changes)) {
      const r = await createWithinIntuitLimits({
        companyId: company.id,
        billIds: [billId],
        confirmDuplicates: [billId],
        recipients: ['payables@bench.test'],
      });
      real.push(r.data.id);
    }
    await caughtUp(total + real.length);
    await settle(env.DATABASE_URL, ['approvals', 'es_events']);
    const setupSeconds = (performance.now() - setupStarted) / 1000;

    // 3. The list: 25 rows, status filter, newest first, GraphQL and REST in turn, 8 clients at once.
    const clients = 8;
    const perClient = quick ? 100 : 400;
    const LIST_FIELDS =
      'id companyName status priority billCount approvedBillCount approvalRate totalAmount approvedAmount managerName managerEmail createdAt';
    // Every field of the REST row that GraphQL has (its answer about REST's size).
    const ALL_FIELDS = [
      'id companyId companyName status priority billIds approvedBillIds billCount approvedBillCount approvalRate',
      'totalAmount approvedAmount bills { id } approvedBills { id } managerId managerName managerEmail',
      'manager { id firstName lastName title email phone } createdBy creator { id firstName lastName }',
      'approvedBy approver { id firstName lastName } rejectedBy rejecter { id firstName lastName }',
      'firstApprovedBy firstApprover { id firstName lastName } firstApprovedAt awaitingSecondApproval',
      'creatorMayNotApprove secondApprovalThreshold secondApprovalRequired viewerMayApprove approveBlockedReason',
      'approvalDate rejectionDate rejectionReason expiresAt expiredAt recipients',
      'confirmedDuplicates { billId matchesApprovalId matchesBillId paid } createdAt updatedAt',
      'nachaFileGenerated nachaFileName nachaFileUrl nachaGeneratedAt nachaBatchNumber nachaEffectiveDate',
      'nachaEntryCount nachaTotalAmount nachaVersion nachaProcessingStatus',
      'nachaFiles { fileId fileName kind version batchNumber generatedAt url current }',
      'nachaProblems { kind message vendorName waitUntil } nachaSkippedBills { billId docNumber reason }',
      'pennyTestGenerated pennyTestFileName pennyTestFileUrl pennyTestGeneratedAt pennyTestBatchNumber',
      'pennyTestAmount pennyTestVendorCount bankUploadedAt paymentCompletedAt qbPaymentSyncStatus qbPaymentSyncAt',
      'qbPaymentSyncMessage qbPaymentSyncDetails',
      'qbPaymentSyncItems { billId billPaymentId docNumber vendorName amount success error duration }',
      'paymentProblem { kind message at jobId queue retry } paymentPrerequisites { kind message blocking vendorName }',
    ].join(' ');
    const gqlBody = (fields: string, status: string, page: number) =>
      JSON.stringify({
        query: `query($status: ApprovalStatus, $page: Int) { approvals(status: $status, page: $page, limit: 25, sortBy: createdAt, sortOrder: desc) { total totalPages data { ${fields} } } }`,
        variables: { status, page },
      });
    const listStatuses = ['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED'];
    // Postgres: this part's database's backends only (other work on the server is not the list's).
    const database = decodeURIComponent(new URL(env.DATABASE_URL).pathname.slice(1));
    const cpuGroups = { gateway: [gateway.pid], postgres: { named: 'postgres', database } };
    interface ListRun {
      times: number[];
      seconds: number;
      cpu: Record<string, number>;
      clientMs: number;
      bytes: number;
    }
    type ListKind = 'graphql' | 'rest' | 'graphqlAll';
    const runList = async (kind: ListKind, count: number): Promise<ListRun> => {
      const times: number[] = [];
      let bytes = 0;
      const cpuBefore = cpuSnapshot(cpuGroups);
      const clientBefore = process.cpuUsage();
      const started = performance.now();
      await Promise.all(
        Array.from({ length: clients }, async (_, c) => {
          for (let i = 0; i < count; i++) {
            const status = listStatuses[(c + i) % listStatuses.length];
            const page = 1 + ((c * 7 + i) % 5);
            const t0 = performance.now();
            const r =
              kind !== 'rest'
                ? await request(
                    agent,
                    new URL('/graphql', base),
                    'POST',
                    { ...auth, 'content-type': 'application/json' },
                    gqlBody(kind === 'graphql' ? LIST_FIELDS : ALL_FIELDS, status, page),
                  )
                : await request(
                    agent,
                    new URL(
                      `/api/bill-approval/approvals?status=${status}&page=${page}&limit=25&sortBy=createdAt&sortOrder=desc`,
                      base,
                    ),
                    'GET',
                    auth,
                  );
            times.push(performance.now() - t0);
            bytes += Buffer.byteLength(r.text);
            if (r.status !== 200 || r.text.includes('"errors"'))
              throw new Error(`${kind} list: ${r.status} ${r.text.slice(0, 200)}`);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const cpu = cpuDelta(cpuBefore, cpuSnapshot(cpuGroups));
      const client = process.cpuUsage(clientBefore);
      return { times, seconds, cpu, clientMs: (client.user + client.system) / 1000, bytes };
    };
    /** One path's figures over all its runs: requests over the seconds they took, percentiles of all. */
    const figuresOf = (runs: ListRun[]): ListFigures => {
      const times = runs.flatMap((r) => r.times).sort((a, b) => a - b);
      const sum = (f: (r: ListRun) => number) => runs.reduce((s, r) => s + f(r), 0);
      const per = (ms: number) => (ms * 1000) / times.length;
      return {
        requests: times.length,
        perSecond: times.length / sum((r) => r.seconds),
        p50: percentile(times, 50),
        p99: percentile(times, 99),
        cpuUs: {
          gateway: per(sum((r) => r.cpu.gateway)),
          postgres: per(sum((r) => r.cpu.postgres)),
          client: per(sum((r) => r.clientMs)),
        },
        bytes: sum((r) => r.bytes) / times.length,
      };
    };
    await runList('graphql', 25); // warm every path
    await runList('rest', 25);
    await runList('graphqlAll', 25);
    // Short runs in the order G R R G, twice: a host that drifts (it is slower for seconds after the
    // setup's bulk writes, or at times for no reason of ours) weighs on both paths alike. Run in two
    // long turns, GraphQL always first, the first turn alone once took twice the CPU per request.
    // The like-for-like GraphQL (every field of REST's row) runs between them, in the same pattern.
    const runs: Record<ListKind, ListRun[]> = { graphql: [], rest: [], graphqlAll: [] };
    const turn = ['graphql', 'rest', 'graphqlAll', 'graphqlAll', 'rest', 'graphql'] as const;
    for (const kind of [...turn, ...turn]) runs[kind].push(await runList(kind, perClient / 2));
    const graphql = figuresOf(runs.graphql);
    const rest = figuresOf(runs.rest);
    const graphqlAll = figuresOf(runs.graphqlAll);

    // 4. The detail: one client, approvals across the log.
    const ids = (
      await pool.query<{ id: string }>(
        `SELECT id::text FROM approvals ORDER BY random() LIMIT ${quick ? 200 : 1000}`,
      )
    ).rows.map((r) => r.id);
    const detailTimes: number[] = [];
    for (const id of ids) {
      const t0 = performance.now();
      const r = await request(agent, new URL(`/api/bill-approval/approvals/${id}`, base), 'GET', auth);
      detailTimes.push(performance.now() - t0);
      if (r.status !== 200) throw new Error(`detail: ${r.status} ${r.text.slice(0, 200)}`);
    }
    detailTimes.sort((a, b) => a - b);

    // 5. A status change reaching an open list and its stat cards: the push on approvalChanged, then
    // what the list screen reads again on it, at once and side by side: its first page (10 rows,
    // newest first) and the stats, over REST (web/src/features/approvals/api/approvals.ts).
    const pushTimes: number[] = [];
    const statsTimes: number[] = [];
    const sentAt = new Map<string, number>();
    const arrived = new Map<string, () => void>();
    const ws = createClient({
      url: `${gateway.url!.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { token },
    });
    await new Promise<void>((resolve, reject) => {
      ws.subscribe(
        // The list screen's own document (web/src/hooks/use-approval-changed.ts): what an open list
        // is pushed, before it reads its page and stat cards again.
        { query: 'subscription { approvalChanged { id type status } }' },
        {
          next: (msg: any) => {
            const change = msg.data?.approvalChanged;
            const t = change ? sentAt.get(change.id) : undefined;
            if (t !== undefined && change.status !== 'PENDING') {
              sentAt.delete(change.id);
              pushTimes.push(performance.now() - t);
              void Promise.all([
                request(
                  agent,
                  new URL(
                    '/api/bill-approval/approvals?page=1&limit=10&sortBy=createdAt&sortOrder=desc',
                    base,
                  ),
                  'GET',
                  auth,
                ),
                request(agent, new URL('/api/bill-approval/approvals/stats', base), 'GET', auth),
              ]).then((answers) => {
                const bad = answers.find((a) => a.status !== 200);
                if (bad) throw new Error(`the screen's re-read: ${bad.status} ${bad.text.slice(0, 200)}`);
                statsTimes.push(performance.now() - t);
                arrived.get(change.id)?.();
              });
            }
          },
          error: reject,
          complete: () => {},
        },
      );
      setTimeout(resolve, 500);
    });
    for (const [i, id] of real.entries()) {
      const done = new Promise<void>((resolve) => arrived.set(id, resolve));
      // The approve's bill ids are read before the clock starts: the figure is change → push, and
      // reading the detail first is not part of the change (it was, for every other sample, before).
      const approvedBills =
        i % 2 === 0 ? null : (await call('GET', `/api/bill-approval/approvals/${id}`)).data.billIdList;
      sentAt.set(id, performance.now());
      if (approvedBills === null)
        await call('PUT', `/api/bill-approval/approvals/${id}/reject`, {
          rejectionReason: 'Bench: not this month',
        });
      else await call('PUT', `/api/bill-approval/approvals/${id}/approve`, { approvedBills });
      await Promise.race([done, new Promise((r) => setTimeout(r, 5000))]);
      await new Promise((r) => setTimeout(r, 50));
    }
    await ws.dispose();
    pushTimes.sort((a, b) => a - b);
    statsTimes.sort((a, b) => a - b);

    // 6. Bulk approve: 100 PENDING approvals in one action, request → answer (the answer comes after
    // its one read-your-writes wait for the whole batch). Five batches, each of other approvals.
    const pending = (
      await pool.query<{ id: string }>(
        `SELECT id::text FROM approvals WHERE status = 'PENDING' ORDER BY random() LIMIT ${BULK_BATCHES * 100}`,
      )
    ).rows.map((r) => r.id);
    const bulkTimes: number[] = [];
    for (let b = 0; b < BULK_BATCHES; b++) {
      const ids = pending.slice(b * 100, b * 100 + 100);
      const t0 = performance.now();
      const r = await call('POST', '/api/bill-approval/approvals/bulk-approve', { ids });
      bulkTimes.push(performance.now() - t0);
      if (r.data.summary.succeeded !== ids.length)
        throw new Error(`bulk approve: ${JSON.stringify(r.data.summary)}`);
    }
    bulkTimes.sort((a, b) => a - b);

    return {
      approvals: total + real.length,
      clients,
      graphql,
      rest,
      graphqlAll,
      detail: {
        requests: detailTimes.length,
        p50: percentile(detailTimes, 50),
        p99: percentile(detailTimes, 99),
      },
      change: {
        changes: pushTimes.length,
        pushP50: percentile(pushTimes, 50),
        pushP99: percentile(pushTimes, 99),
        statsP50: percentile(statsTimes, 50),
        statsP99: percentile(statsTimes, 99),
        statsMax: statsTimes[statsTimes.length - 1] ?? Number.NaN,
      },
      bulk: {
        batches: bulkTimes.length,
        p50: percentile(bulkTimes, 50),
        max: bulkTimes[bulkTimes.length - 1],
      },
      setupSeconds,
    };
  } finally {
    agent.destroy();
    await store.close().catch(() => {});
    await pool.end().catch(() => {});
    await gateway.stop();
    await projector.stop();
    await sim.close();
    await dropRedisPrefix(env.REDIS_URL, env.REDIS_PREFIX);
  }
}

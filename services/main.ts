// One build, several roles: `all` (one process), or `gateway`, `projector`, `worker` as separate
// processes against the same Postgres, Redis and event store.

import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { CatchUpWaiter } from '../projections/catch-up.js';
import type { Database } from '../projections/database.js';
import { dropLegacyIndexes } from '../projections/indexes.js';
import { ProjectionRunner } from '../projections/runner.js';
import { startWorkers } from '../workers/index.js';
import { ProcessManagerRunner } from '../workers/process-manager-runner.js';
import { CommandHandler } from './app/command-handler.js';
import type { AppServices } from './app/context.js';
import { FreshReads } from './app/fresh-reads.js';
import { approvalsPaymentHolds } from './approvals/payments/payment-hold-access.js';
import { AccessTokens } from './auth/access-tokens.js';
import { Credentials } from './auth/credentials.js';
import { LoginRateLimit } from './auth/login-rate-limit.js';
import { RefreshTokens } from './auth/refresh-tokens.js';
import { companiesBankConnections } from './companies/bank-connection-access.js';
import { companiesQuickBooksAccess } from './companies/quickbooks-access.js';
import { ensureCheckpoints } from './consumers/checkpoints.js';
import { PostgresEventStore } from './eventstore/postgres.js';
import { TailWitness, witnessKey } from './eventstore/tail-witness.js';
import { listenMetrics } from './gateway/hardening.js';
import { IdempotencyStore } from './gateway/idempotency.js';
import { createLiveBus } from './gateway/live.js';
import { buildGateway } from './gateway/server.js';
import { jobHandlers, processManagers, projections, schedules, storageSetups } from './modules/index.js';
import { paymentsAchFiles } from './payments/ach-files.js';
import { paymentsAchEntries } from './payments/entries.js';
import { paymentsAchTraces } from './payments/traces.js';
import { paymentsAchWindows } from './payments/window-files.js';
import { assertNoLegacyEvents } from './privacy/legacy.js';
import { BlindIndex, type PersonalDataStore } from './privacy/personal-data.js';
import { openEventStore } from './privacy/store.js';
import { SubjectKeys } from './privacy/subject-keys.js';
import { STORAGE_SETUP_LOCK } from './shared/advisory-locks.js';
import { type Config, ConfigError, loadConfig } from './shared/config.js';
import { createDb, createPool } from './shared/db.js';
import type { Logger } from './shared/log.js';
import { createLogger } from './shared/log.js';
import { QUEUES, queuePrefix } from './shared/queues.js';
import { createRedis, RedisMonitor, redisOptions, redisReady } from './shared/redis.js';
import { claimStreamOf, recordNewUser } from './users/auth.js';
import { emailClaimDecider } from './users/email-claim-decider.js';
import { userDecider } from './users/user-decider.js';
import { findUserRowByEmail } from './users/user-view.js';

export interface StartedApp {
  app: AppServices;
  /** Base URL of the gateway (when this process runs one). */
  url: string | null;
  gateway: FastifyInstance | null;
  /** Where Prometheus scrapes this gateway: its own loopback listener (METRICS_PORT). */
  metricsUrl: string | null;
  /** The first admin's sign-in when this start created it. */
  adminCreated: { email: string; password: string } | null;
  close(): Promise<void>;
}

export interface StartOptions {
  webDist?: string;
  /** The log of the non-HTTP parts (tests capture it); by default JSON lines on stderr. */
  log?: Logger;
}

const ROOT = path.resolve(import.meta.dirname, '..');

/** Rejects when `work` takes longer than `ms` (the work itself is left to finish or fail). */
function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/**
 * Storage every role needs, created idempotently (several processes may start at once). Returns
 * the blind index, whose key the database keeps once ENCRYPTION_KEY has been changed.
 */
async function prepareStorage(
  app: Pick<AppServices, 'store' | 'pool' | 'db' | 'log' | 'subjectKeys'>,
): Promise<BlindIndex> {
  await app.store.init();
  // A log from before personal data was sealed must be copied first (npm run migrate).
  if (app.store.kind === 'postgres') await assertNoLegacyEvents(app.pool);
  // CREATE … IF NOT EXISTS is not safe against a concurrent twin: serialise across processes.
  const client = await app.pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [STORAGE_SETUP_LOCK]);
    await RefreshTokens.setup(app.db);
    await SubjectKeys.setup(client);
    await app.subjectKeys.assertKeyMatches();
    await Credentials.setup(client);
    await ensureCheckpoints(app.db);
    await client.query('CREATE SEQUENCE IF NOT EXISTS user_ids');
    for (const setup of storageSetups) await setup(app.pool);
    await IdempotencyStore.setup(app.db);
    // Empty read-model tables until a projector builds them: a gateway that starts first (or runs
    // with no projector yet) reads 'nothing yet' instead of failing on a missing table.
    for (const p of projections) await p.setup(app.db, 'public');
    // Indexes named by an older release's schema-suffixed scheme are twins of these (indexes.ts).
    const legacy = await dropLegacyIndexes(
      app.pool,
      app.db,
      projections.flatMap((p) => p.tables),
    );
    if (legacy.dropped.length > 0)
      app.log.info({ indexes: legacy.dropped }, 'dropped read-model indexes left twice by earlier rebuilds');
    if (legacy.left.length > 0)
      app.log.warn(
        { indexes: legacy.left, error: legacy.error },
        'could not drop old read-model index twins yet (locked); next start',
      );
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [STORAGE_SETUP_LOCK]).catch(() => {});
    client.release();
  }
  return new BlindIndex(await app.subjectKeys.blindIndexKey());
}

/** How long a start that created the first admin waits for it to show in the users read model. */
const ADMIN_READY_TIMEOUT_MS = 60_000;

/**
 * The first admin, from ADMIN_EMAIL / ADMIN_PASSWORD; returns the sign-in when it created it, and
 * where its events end in the log.
 */
export async function ensureAdmin(app: AppServices, password: string) {
  const email = app.config.ADMIN_EMAIL.toLowerCase();
  const { state } = await app.commands.load(emailClaimDecider, claimStreamOf(app, email));
  if (state.claimedBy !== null) return null;
  try {
    const user = await recordNewUser(
      app,
      null,
      { email, password, firstName: 'System', lastName: 'Administrator', role: 'ADMIN' },
      { system: true, context: { commandId: `bootstrap-admin-${app.blindIndex.email(email)}` } },
    );
    const { events } = await app.store.readStream(userDecider.streamId(user.userId));
    return { email, password, position: events.at(-1)?.position ?? null };
  } catch (err) {
    // Another process created it at the same moment.
    if ((err as { code?: string }).code === 'CONFLICT') return null;
    throw err;
  }
}

/** What a sign-in of the first admin looks up: its row by address, active, and its password. */
async function adminCanSignIn(app: AppServices, email: string, password: string) {
  const row = await findUserRowByEmail(app, email);
  return !!row?.is_active && (await app.credentials.verify(row.credential_id, password));
}

/**
 * The Postgres log's end, witnessed in Redis after each commit (services/eventstore/tail-witness.ts).
 * An outage is logged once a minute at most: the appends go on, only the evidence is thinner.
 */
async function witnessTheLog(
  store: PersonalDataStore,
  pool: pg.Pool,
  redis: Redis,
  prefix: string,
  log: Logger,
) {
  if (!(store.inner instanceof PostgresEventStore)) return null;
  let lastWarned = 0;
  const witness = new TailWitness(redis, await witnessKey(pool, prefix), (err) => {
    if (Date.now() - lastWarned < 60_000) return;
    lastWarned = Date.now();
    log.warn({ err: err.message }, 'the log tail witness could not be written');
  });
  store.inner.witnessTail(witness);
  return witness;
}

export async function startApp(config: Config, options: StartOptions = {}): Promise<StartedApp> {
  const log = options.log ?? createLogger(config.LOG_LEVEL, { role: config.ROLE });
  const pool = createPool({ connectionString: config.DATABASE_URL, max: 20 }, (err) =>
    log.warn({ err: err.message }, 'postgres connection lost'),
  );
  const db = createDb<Database>(pool);
  // Everything above the port sees personal fields opened; the log holds them sealed per subject.
  const { store, subjectKeys } = await openEventStore({
    pool,
    encryptionKey: config.ENCRYPTION_KEY,
    eventstoreUrl: config.EVENTSTORE_URL,
  });
  let blindIndex: BlindIndex;
  try {
    blindIndex = await prepareStorage({ store, pool, db, log, subjectKeys });
  } catch (err) {
    // Refused to start (an old log, a broken database, another key): leave no connection behind.
    await store.close().catch(() => {});
    await pool.end().catch(() => {});
    throw err;
  }
  // One monitor per process: Redis going down and coming back is logged once, whatever the client.
  const redisMonitor = new RedisMonitor(log);
  const redis = createRedis(config.REDIS_URL, redisMonitor);
  const subscriber = createRedis(config.REDIS_URL, redisMonitor);
  // The app's clients fail fast while not connected: give them a moment to connect, but start
  // (degraded) when Redis is not there.
  await Promise.all([redisReady(redis, 3000), redisReady(subscriber, 3000)]);
  const waiter = new CatchUpWaiter({ pool, subscriber, prefix: config.REDIS_PREFIX });
  const tailWitness = await witnessTheLog(store, pool, redis, config.REDIS_PREFIX, log);
  const app: AppServices = {
    config,
    pool,
    db,
    store,
    commands: new CommandHandler(store),
    waiter,
    redis,
    accessTokens: new AccessTokens(config.JWT_SECRET, config.ACCESS_TOKEN_TTL_SECONDS),
    refreshTokens: new RefreshTokens(db, config.REFRESH_TOKEN_TTL_SECONDS, {
      secret: config.JWT_SECRET,
      sessionMaxAgeSeconds: config.SESSION_MAX_AGE_SECONDS,
    }),
    loginLimit: new LoginRateLimit(
      redis,
      config.REDIS_PREFIX,
      config.LOGIN_MAX_FAILURES,
      config.LOGIN_WINDOW_SECONDS,
    ),
    log,
    startedAt: Date.now(),
    freshReads: new FreshReads(),
    credentials: new Credentials(pool),
    subjectKeys,
    blindIndex,
    projectionNames: new Set(projections.map((p) => p.name)),
    queueNames: [QUEUES.maintenance, ...Object.keys(jobHandlers)],
    quickbooks: companiesQuickBooksAccess(() => app),
    bankConnections: companiesBankConnections(() => app),
    achFiles: paymentsAchFiles(() => app),
    paymentHolds: approvalsPaymentHolds(() => app),
    achTraces: paymentsAchTraces(() => app),
    achWindows: paymentsAchWindows(() => app),
    achEntries: paymentsAchEntries(() => app),
    tailWitness,
  };
  await waiter.start();

  const role = config.ROLE;
  const closers: Array<() => Promise<void>> = [];
  if (role === 'all' || role === 'projector') {
    const runner = new ProjectionRunner({
      pool,
      store,
      projections,
      redis,
      prefix: config.REDIS_PREFIX,
      log,
    });
    await runner.start();
    closers.push(() => runner.stop());
    // Process managers run beside the projections: events → BullMQ jobs (their modules declare them: services/modules/).
    const reactions = new ProcessManagerRunner({
      pool,
      store,
      processManagers,
      connection: redisOptions(config.REDIS_URL),
      prefix: queuePrefix(config.REDIS_PREFIX),
      log,
    });
    await reactions.start();
    closers.push(() => reactions.stop());
  }
  if (role === 'all' || role === 'worker') {
    const workers = await startWorkers(app, jobHandlers, schedules);
    closers.push(() => workers.close());
  }

  let gateway: FastifyInstance | null = null;
  let url: string | null = null;
  let metricsUrl: string | null = null;
  let adminCreated: StartedApp['adminCreated'] = null;
  if (role === 'all' || role === 'gateway') {
    // The waiter's connection: one connection delivers a batch's notices before its checkpoint (the
    // projector publishes them in that order), so the row read for the push is on offer before the
    // mutation that waits for the checkpoint looks for it (services/app/fresh-reads.ts).
    const live = await createLiveBus(subscriber, config.REDIS_PREFIX);
    gateway = await buildGateway({
      app,
      live,
      webDist: options.webDist ?? config.WEB_DIST ?? path.join(ROOT, 'web', 'dist'),
    });
    await gateway.listen({ port: config.PORT, host: config.HOST });
    const address = gateway.server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    url = `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${port}`;
    const g = gateway;
    closers.push(async () => {
      await g.close();
      await live.close();
    });
    metricsUrl = await listenMetrics(gateway, config);
    // Without ADMIN_PASSWORD a strong one is generated; it is shown once, by whoever started us.
    const admin = await ensureAdmin(app, config.ADMIN_PASSWORD ?? randomBytes(12).toString('base64url'));
    adminCreated = admin && { email: admin.email, password: admin.password };
    // The start announces the new admin's sign-in as it returns. On a busy host the first start's
    // projector can take longer to build the read models than a request's read-your-writes wait. A
    // process that builds the read models itself waits, bounded (a gateway alone does not wait for a
    // projector that may not be running yet): for the admin's own events, not the log's head, which
    // an older append still running holds back before them; then for a sign-in's own lookups to
    // succeed, since two CI runs still answered 401 after that wait, for a cause not yet found.
    if (admin?.position && role === 'all') {
      const deadline = Date.now() + ADMIN_READY_TIMEOUT_MS;
      const caughtUp = await waiter.waitFor(admin.position, ['users'], ADMIN_READY_TIMEOUT_MS);
      let ready = await adminCanSignIn(app, admin.email, admin.password);
      if (caughtUp && !ready)
        log.warn(
          { position: admin.position },
          'the users read model passed the new admin, yet it cannot sign in: waiting for it',
        );
      while (!ready && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        ready = await adminCanSignIn(app, admin.email, admin.password);
      }
      if (!ready) log.warn({ waitedMs: ADMIN_READY_TIMEOUT_MS }, 'the new admin cannot sign in yet');
    }
  }

  return {
    app,
    url,
    gateway,
    metricsUrl,
    adminCreated,
    async close() {
      // Stop taking work first, then the connections everything shares.
      // Each part gets a bounded time: a Redis or Postgres that is gone must not hold the exit.
      for (const close of closers.reverse())
        await withDeadline(close(), 3000, 'close').catch((err) =>
          log.error({ err: String(err) }, 'close failed'),
        );
      await waiter.close();
      await withDeadline(store.close(), 3000, 'event store close').catch(() => {});
      redis.disconnect();
      subscriber.disconnect();
      await withDeadline(pool.end(), 3000, 'postgres pool end').catch(() => {});
    },
  };
}

// `tsx services/main.ts` (or ROLE=… in a container): run from the environment until a signal.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  try {
    const config = loadConfig();
    const started = await startApp(config);
    if (started.url) process.stdout.write(`Billflow ${config.ROLE} listening on ${started.url}\n`);
    else process.stdout.write(`Billflow ${config.ROLE} running\n`);
    if (started.adminCreated) {
      process.stdout.write(
        `First admin created: ${started.adminCreated.email} / ${started.adminCreated.password}\n`,
      );
    }
    const stop = async () => {
      // However close() fares (Redis or Postgres gone), the process ends within 10 s.
      setTimeout(() => process.exit(1), 9000).unref();
      await started.close();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (err) {
    process.stderr.write(
      `${err instanceof ConfigError ? err.message : String((err as Error).stack ?? err)}\n`,
    );
    process.exit(1);
  }
}

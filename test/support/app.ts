// Starts the whole product (all roles in one process) on its own database and Redis prefix, on a
// random port. Used by integration and browser tests.
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { expect, inject } from 'vitest';
import { type StartedApp, startApp } from '../../services/main.js';
import { loadConfig } from '../../services/shared/config.js';
import { createTestDatabase } from './db.js';
import { createTestRedis } from './redis.js';

export interface TestApp {
  url: string;
  admin: { email: string; password: string };
  started: StartedApp;
  /** Environment that points another process at the same database and Redis prefix. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export function testSecrets() {
  return { JWT_SECRET: randomBytes(32).toString('hex'), ENCRYPTION_KEY: randomBytes(32).toString('base64') };
}

/** The environment of a product on this test database and Redis prefix, with this first admin. */
export function testAppEnv(
  db: { url: string },
  redis: { url: string; prefix: string },
  admin: { email: string; password: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    LOG_LEVEL: 'silent',
    // Tests change QuickBooks through the simulator's hooks and look at once: every /bills view asks
    // CDC (one request). A test of the bill copy itself sets a longer freshness (issue 37 item 7).
    QBO_BILLS_FRESH_SECONDS: '0',
    ...testSecrets(),
    ...extra,
  };
}

/**
 * How long a test app may take to start, its database copy included, however busy the host: well
 * under the 60 s its hooks allow, so a slow start fails here, naming where it stood, instead of
 * timing the hook out with nothing to go on.
 */
export const APP_START_BOUND_MS = 40_000;

export async function startTestApp(
  opts: {
    env?: Record<string, string>;
    webDist?: string;
    /** An empty database, for a test of the first start itself (its projector builds every read model). */
    fresh?: boolean;
  } = {},
): Promise<TestApp> {
  const began = Date.now();
  const phases: Record<string, number> = {};
  const phase = async <T>(name: string, work: Promise<T>): Promise<T> => {
    const from = Date.now();
    try {
      return await work;
    } finally {
      phases[name] = Date.now() - from;
    }
  };
  // A copy of the run's prepared database (test/support/app-template.ts), unless asked for an empty one.
  const template = (!opts.fresh && inject('appTemplate')) || undefined;
  const db = await phase('database', createTestDatabase('app', 10, { template }));
  await db.pool.end();
  const redis = await createTestRedis('app');
  const admin = { email: 'admin@billflow.test', password: 'Admin-Passw0rd!' };
  const env = testAppEnv(db, redis, admin, opts.env);
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', ...env });
  // The product's log stays out of the test output; its last lines explain a start that is too slow.
  const log = recentLog(40);
  const starting = startApp(config, { webDist: opts.webDist, log });
  const left = APP_START_BOUND_MS - (Date.now() - began);
  let timer: NodeJS.Timeout | undefined;
  const tooSlow = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Whatever it finishes as, it is closed: the file fails, leaving nothing running.
      void starting.then((late) => late.close()).catch(() => {});
      void db.drop().catch(() => {});
      reject(
        new Error(
          `the test app did not start within ${APP_START_BOUND_MS} ms (${JSON.stringify(phases)}); its last log lines:\n${log.lines.join('\n')}`,
        ),
      );
    }, left);
  });
  const started = await phase('start', Promise.race([starting, tooSlow])).finally(() => clearTimeout(timer));
  if (!started.url) throw new Error('the test app runs no gateway');
  // BILLFLOW_TEST_TIMINGS=<file>: one JSON line per test app started (where its start time went).
  if (process.env.BILLFLOW_TEST_TIMINGS)
    appendFileSync(
      process.env.BILLFLOW_TEST_TIMINGS,
      `${JSON.stringify({ file: expect.getState().testPath, ms: Date.now() - began, phases, template, at: began })}\n`,
    );
  return {
    url: started.url,
    admin,
    started,
    env,
    async stop() {
      await started.close();
      await redis.cleanup();
      await db.drop();
    },
  };
}

/** A Logger that keeps its last `size` lines in memory. */
function recentLog(size: number) {
  const lines: string[] = [];
  const keep = (level: string) => (obj: unknown, msg?: string) => {
    let fields: string;
    try {
      fields = JSON.stringify(obj);
    } catch {
      fields = String(obj);
    }
    lines.push(`${new Date().toISOString()} ${level} ${msg ?? ''} ${fields}`);
    if (lines.length > size) lines.shift();
  };
  return { lines, info: keep('info'), warn: keep('warn'), error: keep('error') };
}

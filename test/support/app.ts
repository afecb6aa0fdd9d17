// Starts the whole product (all roles in one process) on its own database and Redis prefix, on a
// random port. Used by integration and browser tests.
import { randomBytes } from 'node:crypto';
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

export async function startTestApp(
  opts: { env?: Record<string, string>; webDist?: string } = {},
): Promise<TestApp> {
  const db = await createTestDatabase('app');
  await db.pool.end();
  const redis = await createTestRedis('app');
  const admin = { email: 'admin@billflow.test', password: 'Admin-Passw0rd!' };
  const env = testAppEnv(db, redis, admin, opts.env);
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', ...env });
  const started = await startApp(config, { webDist: opts.webDist });
  if (!started.url) throw new Error('the test app runs no gateway');
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

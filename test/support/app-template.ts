// The database every test app starts from a copy of (test/support/app.ts): the product's storage and
// every read model built (empty), as a projector's first start leaves them. Made once per run by the
// global setup, before any test file starts, so no test's start-up rebuilds every read model in a
// scratch schema while other files run: that cost grew with whatever else the host was doing (a start
// once took more than the 60 s its hook allowed).
//
// Run as its own process (`tsx test/support/app-template.ts <database url> <redis url>`, by
// test/global-setup.ts), as the product runs: one graphql module for our code and its packages alike.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { startApp } from '../../services/main.js';
import { loadConfig } from '../../services/shared/config.js';

/** How long making it may take (one projector start on an empty log), however busy the host. */
const TEMPLATE_BOUND_MS = 60_000;

/** A projector's first start on an empty log, until every read model is built; then nothing runs. */
async function build(databaseUrl: string, redisUrl: string) {
  const prefix = `test_tpl_${randomBytes(4).toString('hex')}`;
  const started = await startApp(
    loadConfig({
      NODE_ENV: 'test',
      ROLE: 'projector',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      LOG_LEVEL: 'silent',
      JWT_SECRET: randomBytes(32).toString('hex'),
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    }),
  );
  try {
    const names = [...started.app.projectionNames];
    const deadline = Date.now() + TEMPLATE_BOUND_MS;
    for (;;) {
      const r = await started.app.pool.query<{ name: string }>('SELECT name FROM projection_checkpoints');
      const built = new Set(r.rows.map((row) => row.name));
      if (names.every((n) => built.has(n))) break;
      if (Date.now() > deadline) throw new Error(`read models not built within ${TEMPLATE_BOUND_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The runners' leases name backends that are gone: a copy starts with none, as a new database does.
    await started.app.pool.query('DELETE FROM consumer_leases');
  } finally {
    await started.close();
    // Whatever the projector left under its prefix (nothing a copy reads).
    const { Redis } = await import('ioredis');
    const r = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const keys = await r.keys(`${prefix}*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const [databaseUrl, redisUrl] = process.argv.slice(2);
  try {
    await build(databaseUrl, redisUrl);
    process.exit(0);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  }
}

// Starts (or reuses) the local Postgres and Redis once for the whole run; each test file then makes
// its own database and Redis key prefix (test/support/*), so files run in parallel. Names the run's
// prepared database that test apps copy (made by the first one, test/support/app.ts) and drops it at
// the end: per run, so it always holds this checkout's storage, and runs side by side do not share it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { ensureLocalServices, withDatabase } from '../tools/local-services.js';

export default async function setup(project: TestProject) {
  process.env.BILLFLOW_QUIET ??= '1';
  const services = await ensureLocalServices();
  project.provide('databaseUrl', services.databaseUrl);
  project.provide('redisUrl', services.redisUrl);
  const appTemplate = `bf_tpl_${randomBytes(5).toString('hex')}`;
  project.provide('appTemplate', appTemplate);
  return async () => {
    const admin = new pg.Client({ connectionString: withDatabase(services.databaseUrl, 'postgres') });
    try {
      await admin.connect();
      for (const name of [appTemplate, `${appTemplate}_build`])
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } catch {
      /* Postgres gone: nothing left to drop */
    } finally {
      await admin.end().catch(() => {});
    }
    await services.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
    /** The database test apps start from a copy of (test/support/app.ts). */
    appTemplate: string;
  }
}

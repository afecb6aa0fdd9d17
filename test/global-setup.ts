// Starts (or reuses) the local Postgres and Redis once for the whole run; each test file then makes
// its own database and Redis key prefix (test/support/*), so files run in parallel. For the projects
// that start the product, also makes the database test apps start from a copy of
// (test/support/app-template.ts), dropped at the end: per run, so it always holds this checkout's
// storage, and runs side by side do not share it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { ensureLocalServices, withDatabase } from '../tools/local-services.js';

const PROJECTS_THAT_START_APPS = ['server', 'e2e'];

export default async function setup(project: TestProject) {
  process.env.BILLFLOW_QUIET ??= '1';
  const services = await ensureLocalServices();
  project.provide('databaseUrl', services.databaseUrl);
  project.provide('redisUrl', services.redisUrl);
  const adminUrl = withDatabase(services.databaseUrl, 'postgres');
  // Named with its time, so a later run can drop what a killed run left behind.
  const appTemplate = `bf_tpl_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
  // Only for the projects whose tests start the product (not the web's, nor the root that holds them
  // all). Elsewhere (the bench's own config) test apps start on an empty database.
  project.provide('appTemplate', '');
  if (PROJECTS_THAT_START_APPS.includes(project.name)) {
    await dropAbandonedTemplates(adminUrl);
    const began = Date.now();
    await makeAppTemplate(
      adminUrl,
      (db) => withDatabase(services.databaseUrl, db),
      services.redisUrl,
      appTemplate,
    );
    // As test apps do (test/support/app.ts): where the run's start-up time went.
    if (process.env.BILLFLOW_TEST_TIMINGS)
      appendFileSync(
        process.env.BILLFLOW_TEST_TIMINGS,
        `${JSON.stringify({ template: project.name, ms: Date.now() - began, at: began })}\n`,
      );
    project.provide('appTemplate', appTemplate);
  }
  return async () => {
    const admin = new pg.Client({ connectionString: adminUrl });
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
    /** The database test apps start from a copy of (test/support/app.ts); '' for none. */
    appTemplate: string;
  }
}

/** The template script's own bound, plus its process start-up. */
const TEMPLATE_PROCESS_BOUND_MS = 90_000;

/** Older than any run: a run killed before its teardown left it (a run's own is dropped at its end). */
const ABANDONED_AFTER_S = 6 * 3600;

async function dropAbandonedTemplates(adminUrl: string) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const r = await admin.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname ~ '^bf_tpl_[0-9]+_'",
    );
    const now = Date.now() / 1000;
    for (const { datname } of r.rows)
      if (now - Number(datname.split('_')[2]) > ABANDONED_AFTER_S)
        await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => {});
  } finally {
    await admin.end();
  }
}

/** Builds the template under another name and renames it when complete: a failed build is never copied. */
async function makeAppTemplate(
  adminUrl: string,
  databaseUrl: (name: string) => string,
  redisUrl: string,
  name: string,
) {
  const building = `${name}_build`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${building}`);
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(import.meta.dirname, 'support', 'app-template.ts'),
        databaseUrl(building),
        redisUrl,
      ],
      { cwd: path.resolve(import.meta.dirname, '..'), stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr = (stderr + String(d)).slice(-4000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), TEMPLATE_PROCESS_BOUND_MS);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearTimeout(timer);
    if (code !== 0) throw new Error(`could not prepare the test apps' database (exit ${code}):\n${stderr}`);
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
  } finally {
    await admin.end();
  }
}

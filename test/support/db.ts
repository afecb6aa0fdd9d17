// A fresh database per test file: isolated, parallel, dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createPool } from '../../services/shared/db.js';
import { withDatabase } from '../../tools/local-services.js';

export interface TestDatabase {
  url: string;
  pool: pg.Pool;
  drop(): Promise<void>;
}

export function adminUrl(): string {
  return withDatabase(inject('databaseUrl'), 'postgres');
}

/** `template`: a prepared database to copy (test/support/app-template.ts) instead of an empty one. */
export async function createTestDatabase(
  label = 't',
  poolSize = 10,
  opts: { template?: string } = {},
): Promise<TestDatabase> {
  const name = `bf_${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 20)}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}${opts.template ? ` TEMPLATE ${opts.template}` : ''}`);
  await admin.end();
  const url = withDatabase(inject('databaseUrl'), name);
  const pool = createPool({ connectionString: url, max: poolSize }, () => {});
  return {
    url,
    pool,
    async drop() {
      await pool.end().catch(() => {});
      const c = new pg.Client({ connectionString: adminUrl() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

// The vendors list over 50,000 vendors reads a page of 20 by the name index, as the planner sees it
// in service: on generic plans, the vendors analysed, the few companies never (autovacuum analyses a
// table after 50 changes), one of them deleted. Leaving a deleted company's vendors out by the
// joined row (`c.deleted_at IS NULL`) made the planner expect a fraction of a per cent of the rows
// and sort all 50,000 for each page; and a page past the list's end is not read at all.
import { type CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../modules/index.js';
import { companiesProjection } from '../../projections/companies/companies.js';
import type { Database } from '../../projections/database.js';
import { vendorsProjection } from '../../projections/vendors/vendors.js';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import type { AppServices } from '../app/context.js';
import type { Actor } from '../auth/permissions.js';
import { ensureCheckpoints } from '../consumers/checkpoints.js';
import { listVendors } from './queries.js';

let tdb: TestDatabase;
let app: AppServices;
const seen: CompiledQuery[] = [];
const admin = { id: 1, role: 'ADMIN', email: 'admin@list.test' } as Actor;
const VENDORS = 50_000;
/** Company 4 is deleted; company 1 has no vendor with bank details. */
const DELETED = 4;

beforeAll(async () => {
  tdb = await createTestDatabase('vendors_list');
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: tdb.pool }),
    log: (event) => {
      if (event.level === 'query') seen.push(event.query);
    },
  });
  await ensureCheckpoints(db);
  await companiesProjection.setup(db as never, 'public');
  await vendorsProjection.setup(db as never, 'public');
  await tdb.pool.query(`
    INSERT INTO projection_checkpoints (name, position, version) VALUES ('vendors', '0', 1), ('companies', '0', 1);
    INSERT INTO companies (id, name, name_lower, status, created_at, updated_at, deleted_at)
      SELECT i, 'Co ' || i, 'co ' || i, 'active', now(), now(), CASE WHEN i = ${DELETED} THEN now() END
      FROM generate_series(1, 4) i;
    INSERT INTO vendors (id, company_id, qb_vendor_id, name, active, has_banking, qb_synced_at, created_at, updated_at)
      SELECT i, 1 + i % 4, i::text, md5(i::text), i % 12 <> 0, i % 4 = 2 OR i % 4 = 3, now(), now(), now()
      FROM generate_series(1, ${VENDORS}) i;
    ANALYZE vendors;`);
  app = { pool: tdb.pool, db } as unknown as AppServices;
});
afterAll(async () => {
  await tdb?.drop();
});

/** The plan Postgres makes for a statement as the product sends it: prepared, on a generic plan. */
async function genericPlan(query: CompiledQuery): Promise<string> {
  const client = await tdb.pool.connect();
  try {
    const literal = (v: unknown) => (typeof v === 'string' ? client.escapeLiteral(v) : String(v));
    await client.query('SET plan_cache_mode = force_generic_plan');
    await client.query(`PREPARE page AS ${query.sql}`);
    const plan = await client.query(`EXPLAIN EXECUTE page(${query.parameters.map(literal).join(', ')})`);
    return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await client.query('DEALLOCATE page').catch(() => {});
    client.release();
  }
}

const pageQueries = () => seen.filter((q) => /\border by\b/i.test(q.sql) && /from "vendors"/.test(q.sql));

describe('the vendors list over 50,000 vendors', () => {
  it('reads each page by walking the name index, a deleted company among them, and leaves its vendors out', async () => {
    const [{ live }] = (
      await tdb.pool.query<{ live: number }>(
        `SELECT count(*)::int AS live FROM vendors WHERE company_id <> ${DELETED}`,
      )
    ).rows;
    for (const filters of [
      {},
      { active: 'true' },
      { hasBanking: 'false' },
      { active: 'true', hasBanking: 'true' },
      { companyId: '2', hasBanking: 'false' },
    ]) {
      seen.length = 0;
      const page = await listVendors(app, admin, { ...filters, page: '7', limit: '20' });
      expect(page.data).toHaveLength(20);
      expect(page.data.map((v) => v.companyId)).not.toContain(DELETED);
      if (Object.keys(filters).length === 0) expect(page.total).toBe(live);
      const names = page.data.map((v) => v.name);
      expect(names).toEqual([...names].sort());
      const [query] = pageQueries();
      expect(query, JSON.stringify(filters)).toBeDefined();
      const plan = await genericPlan(query);
      expect(plan, JSON.stringify(filters)).toMatch(/Index Scan using vendors_(company_)?name_idx/);
      expect(plan, JSON.stringify(filters)).not.toMatch(/Seq Scan on vendors|Sort Key/);
    }
  });

  it('answers a page at or past the end of its filters without reading it', async () => {
    seen.length = 0;
    const none = await listVendors(app, admin, {
      companyId: '1',
      hasBanking: 'true',
      page: '3',
      limit: '20',
    });
    expect(none).toMatchObject({ data: [], total: 0, totalPages: 1 });
    const past = await listVendors(app, admin, { companyId: '2', page: '1000', limit: '20' });
    expect(past.data).toEqual([]);
    expect(past.total).toBeGreaterThan(0);
    expect(pageQueries()).toEqual([]);
    // The deleted company's own list is empty too, its total included.
    expect(await listVendors(app, admin, { companyId: String(DELETED) })).toMatchObject({
      data: [],
      total: 0,
    });
  });
});

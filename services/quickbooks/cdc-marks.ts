// Where a company's incremental QuickBooks read goes on: per company, realm and
// entity, QuickBooks' own time at the start of the last successful read. The next read asks Change
// Data Capture for what changed since (`/cdc?entities=…&changedSince=`), while the mark is within
// Intuit's 30-day look-back; without one (or an older one) it reads everything again.
import type pg from 'pg';

/** Intuit's CDC looks back at most 30 days; a mark older than this (a margin less) means a full read. */
export const CDC_LOOKBACK_MS = 29 * 86_400_000;
/** Intuit's CDC answers at most 1000 objects: a full answer may have left some out. */
export const CDC_MAX_OBJECTS = 1000;

export class CdcMarks {
  constructor(private readonly pool: pg.Pool) {}

  static async setup(pool: pg.Pool | pg.PoolClient) {
    await pool.query(`CREATE TABLE IF NOT EXISTS qb_cdc_marks (
      company_id integer NOT NULL,
      realm_id text NOT NULL,
      entity text NOT NULL,
      since timestamptz NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (company_id, realm_id, entity)
    )`);
  }

  /** The mark to read changes since, or null when a full read is due (none, or past the look-back). */
  async since(companyId: number, realmId: string, entity: string, qbNow: number): Promise<Date | null> {
    const r = await this.pool.query<{ since: Date }>(
      `SELECT since FROM qb_cdc_marks WHERE company_id = $1 AND realm_id = $2 AND entity = $3`,
      [companyId, realmId, entity],
    );
    const since = r.rows[0]?.since ?? null;
    return since && qbNow - since.getTime() < CDC_LOOKBACK_MS ? since : null;
  }

  /** The mark and when it was last moved (or confirmed) by this side's clock, or null. */
  async read(companyId: number, realmId: string, entity: string) {
    const r = await this.pool.query<{ since: Date; updated_at: Date }>(
      `SELECT since, updated_at FROM qb_cdc_marks WHERE company_id = $1 AND realm_id = $2 AND entity = $3`,
      [companyId, realmId, entity],
    );
    return r.rows[0] ? { since: r.rows[0].since, checkedAt: r.rows[0].updated_at } : null;
  }

  /** Moves the mark on (never back: a slower, older read does not undo a newer one). */
  async set(companyId: number, realmId: string, entity: string, since: Date) {
    await this.pool.query(
      `INSERT INTO qb_cdc_marks (company_id, realm_id, entity, since) VALUES ($1, $2, $3, $4)
       ON CONFLICT (company_id, realm_id, entity)
       DO UPDATE SET since = GREATEST(qb_cdc_marks.since, EXCLUDED.since), updated_at = now()`,
      [companyId, realmId, entity, since],
    );
  }

  /** Forgets the company's marks (a manual full refresh). */
  async clear(companyId: number, entity?: string) {
    await this.pool.query(
      `DELETE FROM qb_cdc_marks WHERE company_id = $1 AND ($2::text IS NULL OR entity = $2)`,
      [companyId, entity ?? null],
    );
  }
}

/** Intuit's time stamps (`2015-12-23T12:56:06.196-08:00`) as epoch ms, or null. */
export function qbTime(value: unknown): number | null {
  const t = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(t) ? t : null;
}

/** One entity's rows of a CDC answer (`CDCResponse[0].QueryResponse[].<Entity>`), deleted ones too. */
export function cdcRows<T>(answer: unknown, entity: string): T[] {
  const groups = (answer as { CDCResponse?: Array<{ QueryResponse?: unknown }> })?.CDCResponse?.[0]
    ?.QueryResponse;
  if (!Array.isArray(groups)) return [];
  const out: T[] = [];
  for (const g of groups) {
    const rows = (g as Record<string, unknown> | null)?.[entity];
    if (Array.isArray(rows)) out.push(...(rows as T[]));
  }
  return out;
}

// A per-company copy of its QuickBooks bills and their vendors: the /bills screen
// reads it instead of asking QuickBooks on every view. A full read fills it once; after that CDC
// (`/cdc?entities=Bill,Vendor&changedSince=`) keeps it fresh: changed rows replaced, deleted bills
// dropped. Rows are stored as QuickBooks sent them, made safe for jsonb only (a NUL or a lone
// surrogate, which Postgres refuses, is replaced: jsonbSafe); everything read from here is cleaned by
// services/quickbooks/clean.ts where it is used (services/approvals/qb-bills.ts, bills.ts), as a live answer is.
import type pg from 'pg';

export type CopyKind = 'Bill' | 'Vendor';

/**
 * Strings safe for jsonb, cleaned later as before: a NUL becomes U+0001 (another control, which
 * cleanQbText drops as it drops NUL, and no id allows), a lone surrogate U+FFFD (as cleanQbText does).
 */
export function jsonbSafe(v: unknown): unknown {
  if (typeof v === 'string')
    return v
      .replaceAll(String.fromCharCode(0), String.fromCharCode(1))
      .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  if (Array.isArray(v)) return v.map(jsonbSafe);
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [jsonbSafe(k) as string, jsonbSafe(x)]));
  return v;
}

export class BillCopy {
  constructor(private readonly pool: pg.Pool) {}

  static async setup(pool: pg.Pool | pg.PoolClient) {
    await pool.query(`CREATE TABLE IF NOT EXISTS qb_bill_copy (
      company_id integer NOT NULL,
      realm_id text NOT NULL,
      kind text NOT NULL,
      qb_id text NOT NULL,
      open boolean NOT NULL DEFAULT false,
      doc jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (company_id, realm_id, kind, qb_id)
    )`);
  }

  /**
   * Replaces (full: the company's whole copy) or upserts rows; `deleted` bills are dropped. Only what
   * the /bills list reads is kept: a vendor's e-mail, phone and address are personal fields, sealed
   * in the log and never written to a table in plain (they are read from QuickBooks on create).
   */
  async write(
    companyId: number,
    realmId: string,
    rows: { kind: CopyKind; id: string; doc: Record<string, unknown> }[],
    deleted: { kind: CopyKind; id: string }[],
    full: boolean,
  ) {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      if (full) await c.query(`DELETE FROM qb_bill_copy WHERE company_id = $1`, [companyId]);
      // Another realm's rows (a company connected elsewhere since) are not this company's any more.
      else
        await c.query(`DELETE FROM qb_bill_copy WHERE company_id = $1 AND realm_id <> $2`, [
          companyId,
          realmId,
        ]);
      for (let i = 0; i < rows.length; i += 500) {
        const chunk = rows.slice(i, i + 500);
        await c.query(
          `INSERT INTO qb_bill_copy (company_id, realm_id, kind, qb_id, open, doc)
           SELECT $1, $2, r.kind, r.qb_id, r.open, r.doc
             FROM jsonb_to_recordset($3::jsonb) AS r(kind text, qb_id text, open boolean, doc jsonb)
           ON CONFLICT (company_id, realm_id, kind, qb_id)
           DO UPDATE SET doc = EXCLUDED.doc, open = EXCLUDED.open, updated_at = now()`,
          [
            companyId,
            realmId,
            JSON.stringify(
              chunk.map((r) => ({
                kind: r.kind,
                qb_id: r.id,
                open: r.kind === 'Bill' && Number(r.doc.Balance) > 0,
                doc: jsonbSafe(kept(r.kind, r.doc)),
              })),
            ),
          ],
        );
      }
      if (deleted.length > 0)
        await c.query(
          `DELETE FROM qb_bill_copy WHERE company_id = $1 AND realm_id = $2
             AND (kind, qb_id) IN (SELECT * FROM unnest($3::text[], $4::text[]))`,
          [companyId, realmId, deleted.map((d) => d.kind), deleted.map((d) => d.id)],
        );
      await c.query('COMMIT');
    } catch (err) {
      await c.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      c.release();
    }
  }

  /** The open bills (a balance left to pay; at most `limit`) and the vendors of the copy. */
  async open(companyId: number, realmId: string, limit = 5000) {
    const bills = await this.pool.query<{ doc: Record<string, unknown> }>(
      `SELECT doc FROM qb_bill_copy WHERE company_id = $1 AND realm_id = $2 AND kind = 'Bill' AND open
       ORDER BY qb_id LIMIT $3`,
      [companyId, realmId, limit],
    );
    const vendors = await this.pool.query<{ qb_id: string; doc: Record<string, unknown> }>(
      `SELECT qb_id, doc FROM qb_bill_copy WHERE company_id = $1 AND realm_id = $2 AND kind = 'Vendor'`,
      [companyId, realmId],
    );
    return { bills: bills.rows.map((r) => r.doc), vendors: vendors.rows.map((r) => r.doc) };
  }

  /** Rows of the copy by id, open or not (a create's bills and their vendors while QuickBooks asks to wait). */
  async byIds(companyId: number, realmId: string, kind: CopyKind, ids: string[]) {
    if (ids.length === 0) return [];
    const r = await this.pool.query<{ doc: Record<string, unknown> }>(
      `SELECT doc FROM qb_bill_copy WHERE company_id = $1 AND realm_id = $2 AND kind = $3
         AND qb_id = ANY($4::text[])`,
      [companyId, realmId, kind, ids],
    );
    return r.rows.map((x) => x.doc);
  }

  /** Paid bills (no balance) of the copy with one of these document numbers. */
  async paidWithDocNumbers(companyId: number, realmId: string, docs: string[]) {
    if (docs.length === 0) return [];
    const r = await this.pool.query<{ doc: Record<string, unknown> }>(
      `SELECT doc FROM qb_bill_copy WHERE company_id = $1 AND realm_id = $2 AND kind = 'Bill' AND NOT open
         AND doc->>'DocNumber' = ANY($3::text[])`,
      [companyId, realmId, docs],
    );
    return r.rows.map((x) => x.doc);
  }
}

/** The fields of a copied row the /bills list and the paid look-alike check read. */
const KEPT: Record<CopyKind, readonly string[]> = {
  Bill: [
    'Id',
    'DocNumber',
    'TxnDate',
    'DueDate',
    'TotalAmt',
    'Balance',
    'VendorRef',
    'Line',
    'CurrencyRef',
    'MetaData',
  ],
  Vendor: ['Id', 'DisplayName', 'CompanyName', 'Active', 'MetaData'],
};

function kept(kind: CopyKind, doc: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(KEPT[kind].filter((k) => k in doc).map((k) => [k, doc[k]]));
}

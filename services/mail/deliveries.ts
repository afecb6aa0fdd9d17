// `mail_deliveries`: one row per mail the SMTP server accepted, keyed by the caller's idempotency
// key. The send checks it first and writes it once the server answered 250, so a job that runs again
// (a retry, a stalled job, an enqueue after BullMQ forgot the completed job) sends nothing twice.
// The rows hold no address and no content: the key, the template, the Message-ID and when.
import type pg from 'pg';

export const MAIL_DELIVERIES_TABLE = 'mail_deliveries';

/** Creates the table (idempotent; a module's `storage` hook runs it at start, under the set-up lock). */
export async function setupMailDeliveries(pool: pg.Pool | pg.PoolClient) {
  await pool.query(`CREATE TABLE IF NOT EXISTS ${MAIL_DELIVERIES_TABLE} (
    key text PRIMARY KEY,
    template text NOT NULL,
    message_id text NOT NULL,
    smtp_code integer,
    accepted_at timestamptz NOT NULL DEFAULT now()
  )`);
}

export interface MailDelivery {
  key: string;
  template: string;
  messageId: string;
  acceptedAt: Date;
}

/** The delivery recorded under this key, if the SMTP server already accepted it. */
export async function findDelivery(pool: pg.Pool, key: string): Promise<MailDelivery | null> {
  const r = await pool.query<{ key: string; template: string; message_id: string; accepted_at: Date }>(
    `SELECT key, template, message_id, accepted_at FROM ${MAIL_DELIVERIES_TABLE} WHERE key = $1`,
    [key],
  );
  const row = r.rows[0];
  return row
    ? { key: row.key, template: row.template, messageId: row.message_id, acceptedAt: row.accepted_at }
    : null;
}

/** Records an accepted mail; a second record of the same key keeps the first. */
export async function recordDelivery(
  pool: pg.Pool,
  d: { key: string; template: string; messageId: string; smtpCode: number | null },
): Promise<void> {
  await pool.query(
    `INSERT INTO ${MAIL_DELIVERIES_TABLE} (key, template, message_id, smtp_code) VALUES ($1, $2, $3, $4)
     ON CONFLICT (key) DO NOTHING`,
    [d.key, d.template, d.messageId, d.smtpCode],
  );
}

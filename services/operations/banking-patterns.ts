// Unusual patterns in bank detail changes, for the operations page (decision 0033): one user changing
// more than RAPID_CHANGE_THRESHOLD vendors' banking within an hour (a compromised account, or an
// insider at work), and a change that went live followed within a day by a payment file paying that
// vendor (the common shape of payment-redirection fraud). From the read models (vendor_banking_changes,
// vendors, users, approvals) and the stored files' summaries (nacha_files: vendors paid and their
// tails, never a number); kept while those stand still, as the page refreshes every two seconds.
import { sql } from 'kysely';
import type {
  BankingPatterns,
  ChangedThenPaid,
  RapidBankingChanges,
} from '../../schema/operations/answers.js';
import type { AppServices } from '../app/context.js';
import { readCached } from '../app/read-cache.js';
import { maskTail } from '../shared/masking.js';

/** K: more vendors than this changed by one user within an hour is unusual. */
export const RAPID_CHANGE_THRESHOLD = 5;
export const RAPID_WINDOW_MS = 60 * 60_000;
/** A payment this soon after a change went live is unusual. */
export const PAYMENT_WITHIN_HOURS = 24;
export const LOOKBACK_DAYS = 30;
const PAID_SHOWN = 50;
const NAMES_SHOWN = 10;

/** What the patterns are read from: a kept answer serves while none of them moved (five minutes at most). */
const READ_MODELS = ['vendor_banking_changes', 'approvals', 'users'] as const;

const nameOf = (id: number, first: string | null, last: string | null, email: string | null) =>
  [first, last].filter(Boolean).join(' ') || email || `User #${id}`;

interface ChangeRow {
  requested_by: number;
  vendor_id: number;
  company_id: number;
  requested_at: Date;
  vendor_name: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
}

/**
 * Each burst of one user's changes in which some hour held more than `threshold` vendors: the hours
 * that do are merged where they overlap. `changes` sorted by user, then time.
 */
export function rapidBursts(
  changes: readonly ChangeRow[],
  threshold = RAPID_CHANGE_THRESHOLD,
): RapidBankingChanges[] {
  const out: RapidBankingChanges[] = [];
  let start = 0;
  while (start < changes.length) {
    let end = start;
    while (end < changes.length && changes[end].requested_by === changes[start].requested_by) end++;
    out.push(...burstsOfUser(changes.slice(start, end), threshold));
    start = end;
  }
  return out.sort((a, b) => b.to.localeCompare(a.to));
}

function burstsOfUser(rows: readonly ChangeRow[], threshold: number): RapidBankingChanges[] {
  const bursts: Array<{ from: number; to: number; most: number }> = [];
  const inWindow = new Map<number, number>();
  let j = 0;
  for (let i = 0; i < rows.length; i++) {
    const t = rows[i].requested_at.getTime();
    while (j < rows.length && rows[j].requested_at.getTime() < t + RAPID_WINDOW_MS) {
      inWindow.set(rows[j].vendor_id, (inWindow.get(rows[j].vendor_id) ?? 0) + 1);
      j++;
    }
    if (inWindow.size > threshold) {
      const last = bursts.at(-1);
      if (last && i <= last.to) {
        last.to = Math.max(last.to, j - 1);
        last.most = Math.max(last.most, inWindow.size);
      } else bursts.push({ from: i, to: j - 1, most: inWindow.size });
    }
    const v = rows[i].vendor_id;
    const left = (inWindow.get(v) ?? 0) - 1;
    if (left <= 0) inWindow.delete(v);
    else inWindow.set(v, left);
  }
  return bursts.map((b) => {
    const part = rows.slice(b.from, b.to + 1);
    const u = part[0];
    return {
      userId: u.requested_by,
      userName: nameOf(u.requested_by, u.first_name, u.last_name, u.email),
      from: part[0].requested_at.toISOString(),
      to: part[part.length - 1].requested_at.toISOString(),
      vendorCount: b.most,
      changeCount: part.length,
      vendors: [...new Set(part.map((r) => r.vendor_name ?? `Vendor #${r.vendor_id}`))].slice(0, NAMES_SHOWN),
      companyIds: [...new Set(part.map((r) => r.company_id))],
    };
  });
}

async function rapidChanges(app: AppServices): Promise<RapidBankingChanges[]> {
  // Only the users with more changes than K in some hour are read change by change (most have none).
  const suspects = await sql<{ requested_by: number }>`
    SELECT DISTINCT requested_by FROM (
      SELECT requested_by, count(*) OVER (
        PARTITION BY requested_by ORDER BY requested_at
        RANGE BETWEEN INTERVAL '1 hour' PRECEDING AND CURRENT ROW
      ) AS n
      FROM vendor_banking_changes
      WHERE requested_by IS NOT NULL AND requested_at >= now() - make_interval(days => ${LOOKBACK_DAYS})
    ) w WHERE n > ${RAPID_CHANGE_THRESHOLD}`.execute(app.db);
  const users = suspects.rows.map((r) => r.requested_by);
  if (users.length === 0) return [];
  const { rows } = await sql<ChangeRow>`
    SELECT c.requested_by, c.vendor_id, c.company_id, c.requested_at, v.name AS vendor_name,
      u.first_name, u.last_name, u.email
    FROM vendor_banking_changes c
    LEFT JOIN vendors v ON v.id = c.vendor_id
    LEFT JOIN users u ON u.id = c.requested_by
    WHERE c.requested_by = ANY(${users}::int[]) AND c.requested_at >= now() - make_interval(days => ${LOOKBACK_DAYS})
    ORDER BY c.requested_by, c.requested_at, c.change_id`.execute(app.db);
  return rapidBursts(rows);
}

interface PaidRow {
  change_id: string;
  vendor_id: number;
  vendor_name: string | null;
  company_id: number;
  company_name: string | null;
  requested_by: number | null;
  requested_at: Date;
  live_at: Date;
  verified_by: string | null;
  account_last4: string | null;
  approval_id: string;
  version: number;
  paid_at: Date;
  bank_uploaded_at: Date | null;
  paid_last4: string | null;
  amount_cents: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
}

async function changedThenPaid(app: AppServices): Promise<ChangedThenPaid[]> {
  let rows: PaidRow[];
  try {
    ({ rows } = await sql<PaidRow>`
      SELECT ch.change_id, ch.vendor_id, v.name AS vendor_name, ch.company_id, co.name AS company_name,
        ch.requested_by, ch.requested_at, ch.live_at, ch.verified_by, ch.account_last4,
        f.approval_id, f.version, f.created_at AS paid_at, a.bank_uploaded_at,
        fv->>'accountLast4' AS paid_last4, fv->>'amountCents' AS amount_cents,
        u.first_name, u.last_name, u.email
      FROM vendor_banking_changes ch
      JOIN vendors v ON v.id = ch.vendor_id
      JOIN nacha_files f ON f.company_id = ch.company_id AND f.kind = 'payment'
      CROSS JOIN LATERAL jsonb_array_elements(f.summary->'vendors') fv
      LEFT JOIN approvals a ON a.id = f.approval_id
      LEFT JOIN companies co ON co.id = ch.company_id
      LEFT JOIN users u ON u.id = ch.requested_by
      WHERE ch.live_at >= now() - make_interval(days => ${LOOKBACK_DAYS})
        AND fv->>'qbVendorId' = v.qb_vendor_id
        -- The file paid the account the change set (by its tail), not an account set since.
        AND fv->>'accountLast4' IS NOT DISTINCT FROM ch.account_last4
        AND (
          (f.created_at >= ch.live_at AND f.created_at < ch.live_at + make_interval(hours => ${PAYMENT_WITHIN_HOURS}))
          OR (a.bank_uploaded_at >= ch.live_at AND a.bank_uploaded_at < ch.live_at + make_interval(hours => ${PAYMENT_WITHIN_HOURS})
            AND f.created_at < a.bank_uploaded_at)
        )
      ORDER BY f.created_at DESC, ch.change_id
      LIMIT ${PAID_SHOWN}`.execute(app.db));
  } catch (err) {
    // The stored files' table is made by the approvals' storage hook: none yet, nothing paid.
    if ((err as { code?: string }).code === '42P01') return [];
    throw err;
  }
  return rows.map((r) => ({
    changeId: r.change_id,
    vendorId: r.vendor_id,
    vendorName: r.vendor_name,
    companyId: r.company_id,
    companyName: r.company_name,
    changedById: r.requested_by,
    changedByName:
      r.requested_by === null ? null : nameOf(r.requested_by, r.first_name, r.last_name, r.email),
    changedAt: r.requested_at.toISOString(),
    liveAt: r.live_at.toISOString(),
    verifiedBy: r.verified_by,
    accountNumber: maskTail(r.account_last4, 8),
    approvalId: r.approval_id,
    fileVersion: r.version,
    paidAt: r.paid_at.toISOString(),
    bankUploadedAt: r.bank_uploaded_at?.toISOString() ?? null,
    paidAccountNumber: maskTail(r.paid_last4, 8),
    amount: Number(r.amount_cents ?? 0) / 100,
  }));
}

/** The patterns; null when their read models cannot be read (the page still answers). */
export async function bankingPatterns(app: AppServices): Promise<BankingPatterns | null> {
  try {
    return await readCached(app, READ_MODELS, 'operations:banking-patterns', async () => {
      const [rapid, paid] = await Promise.all([rapidChanges(app), changedThenPaid(app)]);
      return {
        lookbackDays: LOOKBACK_DAYS,
        rapidChangeThreshold: RAPID_CHANGE_THRESHOLD,
        paymentWithinHours: PAYMENT_WITHIN_HOURS,
        rapidChanges: rapid,
        changedThenPaid: paid,
      };
    });
  } catch (err) {
    app.log.warn({ err: (err as Error).message }, 'banking patterns not read');
    return null;
  }
}

// Bank detail changes where money is decided (decision 0033): the approvals list, /bills and the
// approval detail flag each vendor whose banking went live within the company's flag window, or has
// a change pending or frozen, with who made it and when, and who must act. One query for a whole page
// (read models: vendors, vendor_banking_changes, banking_controls, users); masked tails only.
import { sql } from 'kysely';
import type { z } from 'zod';
import { DEFAULT_FLAG_DAYS } from '../../projections/approvals/banking-controls.js';
import type { BankingFlag } from '../../schema/approvals/answers.js';
import { awaitingOnHeldChange } from '../../schema/vendors/answers.js';
import type { AppServices } from '../app/context.js';
import { maskTail } from '../shared/masking.js';

export type BankingFlagDto = z.infer<typeof BankingFlag>;

/**
 * The read models the flags are made of, for the kept answers' keys. `vendors` is left out: it only
 * maps a change's vendor to its QuickBooks id and name, and moves with every sync; a kept answer
 * lives five minutes at most (read-cache.ts), the most a flag past its window is shown too.
 */
export const FLAG_READ_MODELS = ['vendor_banking_changes', 'banking_controls'] as const;

export const vendorKey = (companyId: number, qbVendorId: string) => `${companyId}:${qbVendorId}`;

interface Row {
  company_id: number;
  qb_vendor_id: string;
  vendor_id: number;
  vendor_name: string | null;
  change_id: string;
  status: 'pending' | 'frozen' | 'approved' | 'rejected' | 'live';
  source: BankingFlagDto['source'];
  routing_last4: string | null;
  account_last4: string | null;
  prev_routing_last4: string | null;
  prev_account_last4: string | null;
  requested_by: number | null;
  requested_at: Date;
  decided_by: number | null;
  verified_by: string | null;
  live_at: Date | null;
  flag_days: number;
  r_first: string | null;
  r_last: string | null;
  r_email: string | null;
  d_first: string | null;
  d_last: string | null;
  d_email: string | null;
}

const nameOf = (id: number | null, first: string | null, last: string | null, email: string | null) =>
  id === null ? null : [first, last].filter(Boolean).join(' ') || email || `User #${id}`;

const day = (d: Date) => d.toISOString().slice(0, 10);

const SOURCE_WORDS: Record<BankingFlagDto['source'], string> = {
  form: 'the form',
  batch: 'a batch update',
  csv: 'a CSV import',
  noc: "a bank's notification of change",
};

function flagOf(r: Row): BankingFlagDto {
  const maker = nameOf(r.requested_by, r.r_first, r.r_last, r.r_email);
  const approver = nameOf(r.decided_by, r.d_first, r.d_last, r.d_email);
  const kind =
    r.status === 'pending' ? 'pending-change' : r.status === 'frozen' ? 'frozen-change' : 'recent-change';
  const account = maskTail(r.account_last4, 8);
  const previous = maskTail(r.prev_account_last4, 8);
  const vendor = r.vendor_name ?? `Vendor #${r.vendor_id}`;
  const who = `by ${maker ?? 'the system'} through ${SOURCE_WORDS[r.source]}`;
  const what = `account ${previous ?? '(none)'} → ${account ?? '(none)'}`;
  const awaiting = awaitingOnHeldChange(r.status, maker, " on the vendor's page");
  const until = r.live_at ? new Date(r.live_at.getTime() + r.flag_days * 86_400_000) : null;
  const how =
    r.verified_by === 'second-person'
      ? `approved by ${approver ?? 'a second person'}`
      : r.verified_by === 'micro-deposits'
        ? "confirmed by the vendor's micro-deposits"
        : r.verified_by === 'control-off'
          ? "live at once: the company's control was off"
          : 'live';
  const message =
    kind === 'recent-change'
      ? `${vendor}'s bank details changed on ${day(r.live_at ?? r.requested_at)} (${what}), ${who} on ${day(r.requested_at)}; ${how}`
      : kind === 'pending-change'
        ? `${vendor} has a bank detail change pending (${what}), ${who} on ${day(r.requested_at)}: ${awaiting}`
        : `${vendor}'s bank detail change (${what}, ${who} on ${day(r.requested_at)}) is frozen: ${awaiting}`;
  return {
    kind,
    vendorId: r.vendor_id,
    qbVendorId: r.qb_vendor_id,
    vendorName: r.vendor_name,
    changeId: r.change_id,
    source: r.source,
    routingNumber: maskTail(r.routing_last4, 9),
    accountNumber: account,
    previousRoutingNumber: maskTail(r.prev_routing_last4, 9),
    previousAccountNumber: previous,
    changedById: r.requested_by,
    changedByName: maker,
    changedAt: r.requested_at.toISOString(),
    liveAt: r.live_at?.toISOString() ?? null,
    verifiedBy: r.verified_by,
    verifiedByName: r.verified_by === 'second-person' ? approver : null,
    flaggedUntil: until?.toISOString() ?? null,
    awaiting,
    message,
  };
}

/**
 * The flags of these vendors (company and QuickBooks id), newest first, by vendorKey: each change
 * pending or frozen, and each that went live within the company's flag window. One query.
 */
export async function bankingFlagsOf(
  app: AppServices,
  vendors: ReadonlyArray<{ companyId: number; qbVendorId: string }>,
): Promise<Map<string, BankingFlagDto[]>> {
  const wanted = new Map(vendors.map((v) => [vendorKey(v.companyId, v.qbVendorId), v]));
  const out = new Map<string, BankingFlagDto[]>();
  if (wanted.size === 0) return out;
  const list = [...wanted.values()];
  const { rows } = await sql<Row>`
    SELECT v.company_id, v.qb_vendor_id, v.id AS vendor_id, v.name AS vendor_name,
      ch.change_id, ch.status, ch.source, ch.routing_last4, ch.account_last4, ch.prev_routing_last4,
      ch.prev_account_last4, ch.requested_by, ch.requested_at, ch.decided_by, ch.verified_by, ch.live_at,
      coalesce(bc.flag_days, ${DEFAULT_FLAG_DAYS})::int AS flag_days,
      ru.first_name AS r_first, ru.last_name AS r_last, ru.email AS r_email,
      du.first_name AS d_first, du.last_name AS d_last, du.email AS d_email
    FROM unnest(${list.map((v) => v.companyId)}::int[], ${list.map((v) => v.qbVendorId)}::text[])
      AS x(company_id, qb_vendor_id)
    JOIN vendors v ON v.company_id = x.company_id AND v.qb_vendor_id = x.qb_vendor_id
    JOIN vendor_banking_changes ch ON ch.vendor_id = v.id
    LEFT JOIN banking_controls bc ON bc.company_id = v.company_id
    LEFT JOIN users ru ON ru.id = ch.requested_by
    LEFT JOIN users du ON du.id = ch.decided_by
    WHERE ch.status IN ('pending', 'frozen')
      OR (ch.status IN ('approved', 'live')
        AND ch.live_at >= now() - make_interval(days => coalesce(bc.flag_days, ${DEFAULT_FLAG_DAYS})))
    ORDER BY ch.requested_at DESC, ch.change_id`.execute(app.db);
  for (const r of rows) {
    const key = vendorKey(r.company_id, r.qb_vendor_id);
    out.set(key, [...(out.get(key) ?? []), flagOf(r)]);
  }
  return out;
}

/** The flags of one approval's vendors (its bills' QuickBooks vendors), from a page's map. */
export function flagsOfApproval(
  flags: ReadonlyMap<string, BankingFlagDto[]>,
  companyId: number,
  qbVendorIds: readonly string[],
): BankingFlagDto[] {
  return qbVendorIds.flatMap((id) => flags.get(vendorKey(companyId, id)) ?? []);
}

// Keeps a company's copy of its QuickBooks bills fresh (services/quickbooks/bill-copy.ts).
// The first read (or a manual full refresh) lists every bill and vendor once; afterwards a view
// older than QBO_BILLS_FRESH_SECONDS asks CDC what changed since the last read (one request), and a
// view within it asks QuickBooks nothing. One refresh per company at a time in a process.

import type { CommandContext } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import type { QbAccess } from '../app/quickbooks-access.js';
import { BillCopy, type CopyKind } from '../quickbooks/bill-copy.js';
import { CDC_LOOKBACK_MS, CDC_MAX_OBJECTS, CdcMarks, cdcRows, qbTime } from '../quickbooks/cdc-marks.js';
import { QbApiError, QbThrottledError } from '../quickbooks/client.js';

const MARK = 'BillCopy';
/** At most this many bills in a full read (20 pages of 1000). */
const FULL_READ_MAX = 20_000;

type Row = Record<string, unknown> & { Id?: unknown; status?: unknown };
const refreshing = new Map<number, Promise<void>>();

/** 'cdc': ask CDC now; 'full': read everything again; undefined: CDC only when the copy is stale. */
export type BillCopyRefresh = 'cdc' | 'full' | undefined;

/** The copy as a screen shows it: its rows, when it last matched QuickBooks, and any wait asked for. */
export interface BillCopyAnswer {
  bills: Row[];
  vendors: Row[];
  realmId: string;
  /** When the copy last matched QuickBooks (the last read that succeeded, by this side's clock). */
  asOf: Date;
  /** QuickBooks asked to wait this long, so the copy was not brought up to date; null otherwise. */
  retryAfterMs: number | null;
}

/**
 * The company's copy, fresh as asked: the open bills and the vendors it holds (as QuickBooks sent
 * them, jsonb-safe; the caller cleans them). With `keptWhileThrottled`, a refresh that QuickBooks'
 * limits refuse leaves the copy as it stands and the answer says how old it is and how long to wait;
 * without a copy yet (or without the option) the refusal goes up.
 */
export async function billCopyFor(
  app: AppServices,
  companyId: number,
  ctx: CommandContext,
  refresh: BillCopyRefresh = undefined,
  options: { keptWhileThrottled?: boolean } = {},
): Promise<BillCopyAnswer> {
  const access = await app.quickbooks.access(companyId, ctx);
  const marks = new CdcMarks(app.pool);
  const mark = await marks.read(companyId, access.realmId, MARK);
  const freshMs = app.config.QBO_BILLS_FRESH_SECONDS * 1000;
  const due =
    refresh === 'full'
      ? 'full'
      : !mark || Date.now() - mark.since.getTime() > CDC_LOOKBACK_MS
        ? 'full'
        : refresh === 'cdc' || Date.now() - mark.checkedAt.getTime() >= freshMs
          ? 'cdc'
          : null;
  let asOf = mark?.checkedAt ?? null;
  let retryAfterMs: number | null = null;
  if (due) {
    let running = refreshing.get(companyId);
    if (!running || due === 'full') {
      const p = readInto(app, companyId, access, due, mark?.since ?? null).finally(() => {
        if (refreshing.get(companyId) === p) refreshing.delete(companyId);
      });
      refreshing.set(companyId, p);
      running = p;
    }
    try {
      await running;
      asOf = (await marks.read(companyId, access.realmId, MARK))?.checkedAt ?? new Date();
    } catch (err) {
      if (!(options.keptWhileThrottled && err instanceof QbThrottledError && mark)) throw err;
      retryAfterMs = err.retryAfterMs;
    }
  }
  const copy = await new BillCopy(app.pool).open(companyId, access.realmId);
  return {
    ...(copy as { bills: Row[]; vendors: Row[] }),
    realmId: access.realmId,
    asOf: asOf ?? new Date(),
    retryAfterMs,
  };
}

/**
 * Bills of the copy by id (open or not) and their vendors, with when the copy last matched
 * QuickBooks: what a create takes while QuickBooks asks to wait. Null when the company has no copy of
 * this realm yet.
 */
export async function billsInCopy(app: AppServices, companyId: number, realmId: string, billIds: string[]) {
  const mark = await new CdcMarks(app.pool).read(companyId, realmId, MARK);
  if (!mark) return null;
  const copy = new BillCopy(app.pool);
  const bills = (await copy.byIds(companyId, realmId, 'Bill', billIds)) as Row[];
  const vendorIds = [
    ...new Set(
      bills
        .map((b) => (b.VendorRef as { value?: unknown } | undefined)?.value)
        .filter((v): v is string => typeof v === 'string'),
    ),
  ];
  const vendors = (await copy.byIds(companyId, realmId, 'Vendor', vendorIds)) as Row[];
  return { bills, vendors, asOf: mark.checkedAt };
}

/** Whether the company has a copy of this realm's bills (a first full read has succeeded). */
export async function hasBillCopy(app: AppServices, companyId: number, realmId: string) {
  return (await new CdcMarks(app.pool).read(companyId, realmId, MARK)) !== null;
}

/** Paid bills of the copy with these document numbers (the /bills screen's paid look-alikes). */
export function paidInCopy(app: AppServices, companyId: number, realmId: string, docs: string[]) {
  return new BillCopy(app.pool).paidWithDocNumbers(companyId, realmId, docs) as Promise<Row[]>;
}

async function readInto(
  app: AppServices,
  companyId: number,
  access: QbAccess,
  how: 'full' | 'cdc',
  since: Date | null,
) {
  const { client, isSandbox, realmId, auth } = access;
  const copy = new BillCopy(app.pool);
  const marks = new CdcMarks(app.pool);
  const id = (r: Row) => (typeof r.Id === 'string' && r.Id.length <= 64 ? r.Id : null);
  if (how === 'cdc' && since) {
    const answer = await client.cdc(isSandbox, realmId, auth, ['Bill', 'Vendor'], since).catch((err) => {
      // A mark QuickBooks will not look back to: read everything instead.
      if (err instanceof QbApiError && err.status === 400 && /changedSince/i.test(err.message)) return null;
      throw err;
    });
    const bills = answer ? cdcRows<Row>(answer, 'Bill') : [];
    const vendors = answer ? cdcRows<Row>(answer, 'Vendor') : [];
    if (answer && bills.length + vendors.length < CDC_MAX_OBJECTS) {
      const rows: { kind: CopyKind; id: string; doc: Row }[] = [];
      const deleted: { kind: CopyKind; id: string }[] = [];
      for (const [kind, list] of [
        ['Bill', bills],
        ['Vendor', vendors],
      ] as const)
        for (const r of list) {
          const key = id(r);
          if (!key) continue;
          if (r.status === 'Deleted') deleted.push({ kind, id: key });
          else rows.push({ kind, id: key, doc: r });
        }
      await copy.write(companyId, realmId, rows, deleted, false);
      const at = qbTime(answer.time);
      await marks.set(companyId, realmId, MARK, at !== null ? new Date(at) : since);
      return;
    }
  }
  // The whole list: every bill (the paid ones answer the look-alike check) and every vendor.
  let startedAt: number | null = null;
  const page = async (entity: 'Bill' | 'Vendor', where: string) => {
    const out: Row[] = [];
    for (let start = 1; start <= FULL_READ_MAX; start += 1000) {
      const r = await client.query<Record<string, Row[] | undefined>>(
        isSandbox,
        realmId,
        auth,
        `select * from ${entity} ${where} STARTPOSITION ${start} MAXRESULTS 1000`,
      );
      startedAt ??= qbTime((r as { time?: unknown }).time);
      const rows = r.QueryResponse[entity] ?? [];
      out.push(...rows);
      if (rows.length < 1000) break;
    }
    return out;
  };
  const bills = await page('Bill', '');
  // Inactive (or deleted) vendors too: Intuit answers only active ones unless asked.
  const vendors = await page('Vendor', 'where Active IN (true,false)');
  const rows = [
    ...bills.flatMap((b) => (id(b) ? [{ kind: 'Bill' as const, id: id(b)!, doc: b }] : [])),
    ...vendors.flatMap((v) => (id(v) ? [{ kind: 'Vendor' as const, id: id(v)!, doc: v }] : [])),
  ];
  await copy.write(companyId, realmId, rows, [], true);
  await marks.set(companyId, realmId, MARK, new Date(startedAt ?? Date.now()));
}

/**
 * After a vendor sync (asked for by a person or by Intuit's webhook): a company whose bill copy
 * exists has it brought up to date by CDC too (one request), so a view within the freshness window
 * shows what the webhook announced. A company without a copy gets none here (its first view reads).
 */
export async function refreshBillCopyIfKept(app: AppServices, companyId: number, ctx: CommandContext) {
  const { realmId } = await app.quickbooks.access(companyId, ctx);
  if (!(await new CdcMarks(app.pool).read(companyId, realmId, MARK))) return false;
  await billCopyFor(app, companyId, ctx, 'cdc');
  return true;
}

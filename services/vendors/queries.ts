// Reading vendors: the list, one vendor (with its full numbers after a recorded
// unmask: banking.ts), the active ones without bank details, and the ACH status by QuickBooks id.
import { type RawBuilder, sql } from 'kysely';
import type { VendorAchStatus } from '../../schema/vendors/answers.js';
import {
  AchStatusInput,
  MissingBankingInput,
  VendorGetInput,
  VendorListInput,
} from '../../schema/vendors/commands.js';
import type { AppServices } from '../app/context.js';
import { keptUnder, readModelVersion } from '../app/read-cache.js';
import { companyScope, requireCompanyInScope, scopeKey } from '../app/staff-scope.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { AppError, parseInput } from '../shared/errors.js';
import type { Page } from '../shared/paging.js';
import { unmaskedVendor } from './banking.js';
import { withPendingChange } from './banking-changes.js';
import {
  anyVendorRows,
  deletedCompanyIds,
  inLiveCompanies,
  parseId,
  requireVendor,
  toDto,
  type VendorDto,
  type VendorRow,
  vendorRows,
} from './vendor-rows.js';

const likePattern = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A search matching at least this many times the rows up to the page's end is paged by walking the
 * name index (listVendors).
 */
const BROAD_SEARCH_FACTOR = 20;

/** What the vendors list reads: its rows, and each vendor's company name. */
const VENDOR_LIST_READ_MODELS = ['vendors', 'companies'] as const;

export async function listVendors(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<Page<VendorDto>> {
  authorize(actor, 'vendors.read');
  const { search, companyId, hasBanking, active, page, limit } = parseInput(VendorListInput, query);
  const scope = await companyScope(app, actor);
  // Kept while the vendors and companies read models stand still (read-cache.ts: never stale). The
  // total apart from the page: paging through one search counts its matches once, not per page (a
  // search matching a third of 50,000 vendors is a bitmap scan of ~17,000 rows to count).
  const version = await readModelVersion(app, VENDOR_LIST_READ_MODELS);
  // A deleted company's vendors are left out by their company ids, not by the joined row: the
  // company is joined for its name only (vendor-rows.ts inLiveCompanies says why).
  const deleted = await deletedCompanyIds(app, version);
  let q = anyVendorRows(app);
  let count = app.db.selectFrom('vendors as v').select((eb) => eb.fn.countAll<string>().as('n'));
  const filters = <T extends typeof q | typeof count>(b: T): T => {
    let x = b as typeof q;
    if (companyId !== undefined) x = x.where('v.company_id', '=', companyId);
    if (hasBanking !== undefined) x = x.where('v.has_banking', '=', hasBanking);
    if (active !== undefined) x = x.where('v.active', '=', active);
    if (search) x = x.where('v.search_text', 'like', likePattern(search));
    return inLiveCompanies(x, scope, deleted) as unknown as T;
  };
  q = filters(q);
  count = filters(count);
  const filtersKey = JSON.stringify([search, companyId, hasBanking, active, scopeKey(scope)]);
  const offset = (page - 1) * limit;
  const pageOf = (order: RawBuilder<unknown>) => q.orderBy(order).orderBy('v.id').limit(limit).offset(offset);
  const pageKey = `vendors:page:${filtersKey}:${page}:${limit}`;
  const totalKept = () =>
    keptUnder(app, version, `vendors:total:${filtersKey}`, async () =>
      Number((await count.executeTakeFirstOrThrow()).n),
    );
  // The total first (kept per filters, it serves every page): a page at or past its end is empty
  // and is not read. Walking the name index for filters that match nothing passed every vendor of
  // the company (a company's vendors filtered to 'has banking' when none has: 20 – 50 ms).
  const total = await totalKept();
  let rows: VendorRow[];
  if (offset >= total) rows = [];
  else if (!search) rows = await keptUnder(app, version, pageKey, () => pageOf(sql`lower(v.name)`).execute());
  else {
    // A search's page is found one of two ways, by how many vendors match. Few: from the trigram
    // index, sorted (walking the name index instead passes most vendors when the matches sort late:
    // 30 ms over 50,000). Many (a third of all vendors for 'billing1'): sorting them all was the
    // list's tail (60 – 80 ms on this host), while walking the name index finds the page after
    // about (offset + limit) × vendors / matches rows. The planner cannot know how many a substring
    // matches (its guess is a fraction of a per cent), so the walk is asked for: no bitmap scan (the
    // trigram index has no other), no sequential scan.
    const broad = (offset + limit) * BROAD_SEARCH_FACTOR <= total;
    rows = await keptUnder(app, version, pageKey, () =>
      broad
        ? app.db.transaction().execute(async (trx) => {
            await sql`SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = off`.execute(trx);
            return trx.executeQuery(pageOf(sql`lower(v.name)`).compile()).then((r) => r.rows as VendorRow[]);
          })
        : pageOf(sql`lower(v.name) || ''`).execute(),
    );
  }
  return { data: rows.map(toDto), total, page, limit, totalPages: Math.max(1, Math.ceil(total / limit)) };
}

/**
 * One vendor. With `showUnmasked=true` (ADMIN, MODERATOR) the unmask is recorded first — an event
 * with who and when — and only then are the full numbers read from the vendor's stream.
 */
export async function getVendor(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  query: unknown = {},
): Promise<VendorDto> {
  authorize(actor, 'vendors.read');
  const vendorId = parseId(id);
  const { showUnmasked } = parseInput(VendorGetInput, query);
  const row = await requireVendor(app, actor, vendorId);
  // The held change comes with the vendor: its page shows it beside the live numbers.
  const dto = await withPendingChange(app, toDto(row));
  if (!showUnmasked) return { ...dto, isUnmasked: false };
  return unmaskedVendor(app, actor, row, dto);
}

/** Active vendors without bank details (optionally of one company), by name. */
export async function vendorsMissingBanking(app: AppServices, actor: Actor | null, query: unknown) {
  authorize(actor, 'vendors.read');
  const { companyId } = parseInput(MissingBankingInput, query);
  // Read by the name index as the list is, so the deleted companies are left out by id too.
  const deleted = await deletedCompanyIds(app, await readModelVersion(app, ['companies']));
  let q = inLiveCompanies(
    anyVendorRows(app).where('v.has_banking', '=', false).where('v.active', '=', true),
    await companyScope(app, actor),
    deleted,
  );
  if (companyId !== undefined) q = q.where('v.company_id', '=', companyId);
  return (await q.orderBy(sql`lower(v.name)`).orderBy('v.id').limit(1000).execute()).map(toDto);
}

/** The vendor's ACH status, by the company and QuickBooks vendor id (masked numbers). */
export async function vendorAchStatus(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<VendorAchStatus> {
  authorize(actor, 'vendors.read');
  const { companyId, qbVendorId } = parseInput(AchStatusInput, query);
  await requireCompanyInScope(app, actor, companyId, 'Vendor not found');
  const row = await vendorRows(app)
    .where('v.company_id', '=', companyId)
    .where('v.qb_vendor_id', '=', qbVendorId)
    .executeTakeFirst();
  if (!row) throw new AppError('NOT_FOUND', 'Vendor not found');
  const d = toDto(row);
  return {
    hasBankingInfo: d.hasBankingInfo,
    routingNumber: d.routingNumber,
    accountNumber: d.accountNumber,
    accountType: d.accountType,
    bankName: d.bankName,
    vendorId: d.id,
    vendorName: d.name,
  };
}

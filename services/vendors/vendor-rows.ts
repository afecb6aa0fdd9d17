// The vendors read model as the use cases read it: its rows (a deleted company's left out, or kept
// for commands that refuse them by name), the answer with masked numbers, and the staff scope.
import { sql } from 'kysely';
import { bankingBlockMessage, type Vendor } from '../../schema/vendors/answers.js';
import { answerAfterWrite } from '../app/answer-after-write.js';
import type { AppServices } from '../app/context.js';
import { keptUnder } from '../app/read-cache.js';
import { type CompanyScope, companyScope, inScope } from '../app/staff-scope.js';
import type { Actor } from '../auth/permissions.js';
import type { Position } from '../eventstore/port.js';
import { AppError, parseRowId } from '../shared/errors.js';
import { maskTail } from '../shared/masking.js';

// The answer is written once in schema/vendors/answers.ts; this name stays for its users.
export type VendorDto = Vendor;

export const parseId = (id: unknown) => parseRowId(id, 'Vendor not found');

/**
 * Every vendor, a deleted company's too (with `company_deleted_at`): for commands, which refuse those
 * by name (COMPANY_DELETED), and for forgetting, which must stay possible.
 */
export function anyVendorRows(app: AppServices) {
  return app.db
    .selectFrom('vendors as v')
    .leftJoin('companies as c', 'c.id', 'v.company_id')
    .select([
      'v.id',
      'v.company_id',
      'v.qb_vendor_id',
      'v.name',
      'v.email',
      'v.phone',
      'v.active',
      'v.has_banking',
      'v.routing_last4',
      'v.account_last4',
      'v.account_type',
      'v.bank_name',
      'v.blocked_at',
      'v.block_code',
      'v.block_description',
      'v.block_trace',
      'v.remittance_advice',
      'v.created_at',
      'v.updated_at',
      'v.qb_synced_at',
      'c.name as company_name',
      'c.deleted_at as company_deleted_at',
    ]);
}

/** The vendors every read shows: a deleted company's are left out, bank details and all. */
export const vendorRows = (app: AppServices) => anyVendorRows(app).where('c.deleted_at', 'is', null);
export type VendorRow = Awaited<ReturnType<ReturnType<typeof vendorRows>['executeTakeFirstOrThrow']>>;

export const COMPANY_DELETED = 'This vendor’s company has been deleted: its vendors cannot be changed';

export function toDto(r: VendorRow): VendorDto {
  return {
    id: r.id,
    name: r.name,
    companyId: r.company_id,
    companyName: r.company_name,
    qbVendorId: r.qb_vendor_id,
    email: r.email,
    phone: r.phone,
    active: r.active,
    hasBankingInfo: r.has_banking,
    routingNumber: maskTail(r.routing_last4, 9),
    accountNumber: maskTail(r.account_last4, 8),
    accountType: r.account_type,
    bankName: r.bank_name,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    qbSyncedAt: r.qb_synced_at.toISOString(),
    bankingBlock:
      r.blocked_at === null
        ? null
        : {
            returnCode: r.block_code ?? '',
            description: r.block_description ?? '',
            traceNumber: r.block_trace ?? '',
            since: r.blocked_at.toISOString(),
            message: bankingBlockMessage(r.block_code ?? '', r.block_description ?? ''),
          },
    remittanceAdvice: r.remittance_advice,
  };
}

export async function findVendor(app: AppServices, id: number) {
  return vendorRows(app).where('v.id', '=', id).executeTakeFirst();
}

/** A vendor for a reader: absent, of a deleted company or outside their companies is not found. */
export async function requireVendor(app: AppServices, actor: Actor, id: number): Promise<VendorRow> {
  const row = await findVendor(app, id);
  if (!row || !inScope(await companyScope(app, actor), row.company_id))
    throw new AppError('NOT_FOUND', 'Vendor not found');
  return row;
}

/** The vendor a command changes: refused, by name, when its company has been deleted. */
export async function requireChangeableVendor(
  app: AppServices,
  actor: Actor,
  id: number,
): Promise<VendorRow> {
  const row = await anyVendorRows(app).where('v.id', '=', id).executeTakeFirst();
  if (!row || !inScope(await companyScope(app, actor), row.company_id))
    throw new AppError('NOT_FOUND', 'Vendor not found');
  if (row.company_deleted_at !== null) throw new AppError('CONFLICT', COMPANY_DELETED);
  return row;
}

/** The staff scope as a filter on `vendors as v` (decision 0001): every company, or these. */
export function inCompanies<Q extends { where: (...args: any[]) => any }>(q: Q, scope: CompanyScope): Q {
  if (scope === 'all') return q;
  return (scope.size > 0 ? q.where('v.company_id', 'in', [...scope]) : q.where(sql<boolean>`false`)) as Q;
}

/** The deleted companies' ids (a few, if any), kept while the companies read model stands still. */
export function deletedCompanyIds(app: AppServices, version: string | null): Promise<number[]> {
  return keptUnder(app, version, 'companies:deleted-ids', async () =>
    (await app.db.selectFrom('companies').select('id').where('deleted_at', 'is not', null).execute()).map(
      (r) => r.id,
    ),
  );
}

/**
 * The staff scope and the deleted companies as a filter on `vendors as v` alone, for a list read by
 * the name index: with `c.deleted_at IS NULL` after the left join, the planner (guessing that a
 * small fraction of rows pass) sorted all 50,000 vendors for a page of 20 instead of walking the
 * index, 40 – 230 ms against under 1; the count's anti-join cost a second scan too. No deleted
 * company (the usual case) adds no condition at all; staff's companies are never deleted ones.
 */
export function inLiveCompanies<Q extends { where: (...args: any[]) => any }>(
  q: Q,
  scope: CompanyScope,
  deleted: readonly number[],
): Q {
  if (scope !== 'all') return inCompanies(q, new Set([...scope].filter((id) => !deleted.includes(id))));
  return (deleted.length > 0 ? q.where('v.company_id', 'not in', [...deleted]) : q) as Q;
}

/** Answers a write from the vendors read model once it has applied the write's events. */
export async function answer(
  app: AppServices,
  vendorId: number,
  position: Position | null,
): Promise<VendorDto> {
  return toDto(await answerAfterWrite(app, position, ['vendors'], () => findVendor(app, vendorId)));
}

// The vendors as CSV: what an import (csv-import.ts) reads back once the masked numbers are filled
// in, or as it is when an ADMIN exported the full numbers (an unmasked export is on record).
import { stringify as stringifyCsv } from 'csv-stringify/sync';
import { sql } from 'kysely';
import { VendorExportInput } from '../../schema/vendors/commands.js';
import type { AppServices } from '../app/context.js';
import { companyScope } from '../app/staff-scope.js';
import { type Actor, authorize, can, commandContext } from '../auth/permissions.js';
import { AppError, parseInput } from '../shared/errors.js';
import { inParallel } from '../shared/parallel.js';
import { type Banking, vendorDecider, vendorStreamId } from './vendor-decider.js';
import { inCompanies, toDto, type VendorDto, vendorRows } from './vendor-rows.js';

/** Vendors whose unmask is recorded together: the store groups a chunk into a few appends. */
const FULL_EXPORT_CHUNK = 1000;

const EXPORT_COLUMNS = [
  'ID',
  'Name',
  'Company',
  'QuickBooks ID',
  'Email',
  'Phone',
  'Active',
  'Routing Number',
  'Account Number',
  'Account Type',
  'Bank Name',
];

/** Spreadsheet apps run a cell that starts with = + - @ as a formula: such text is quoted with '. */
const cell = (v: string | null) => (v && /^[=+\-@\t\r]/.test(v) ? `'${v}` : (v ?? ''));

/**
 * The full numbers of the vendors an ADMIN exports: each vendor with bank details records the unmask
 * first (VendorBankingUnmasked with the export's filter and size, never the numbers), as Show Full
 * Numbers does, and the numbers are then opened from its sealed stream.
 */
async function fullBanking(
  app: AppServices,
  actor: Actor,
  vendors: readonly VendorDto[],
  filter: { companyId: number | null; includeInactive: boolean },
): Promise<Map<number, Banking>> {
  const shown = vendors.filter((v) => v.hasBankingInfo);
  const now = new Date().toISOString();
  const record = { ...filter, vendors: vendors.length };
  const banking = new Map<number, Banking>();
  for (let i = 0; i < shown.length; i += FULL_EXPORT_CHUNK) {
    const chunk = shown.slice(i, i + FULL_EXPORT_CHUNK);
    await app.commands.prime(
      vendorDecider,
      chunk.map((v) => vendorStreamId(v.companyId, v.qbVendorId)),
    );
    await inParallel(chunk, FULL_EXPORT_CHUNK, async (v) => {
      const recorded = await app.commands.handle(
        vendorDecider,
        vendorStreamId(v.companyId, v.qbVendorId),
        { type: 'RecordUnmask', byUserId: actor.id, now, export: record },
        commandContext(actor),
      );
      if (recorded.state.banking) banking.set(v.id, recorded.state.banking);
    });
  }
  return banking;
}

/**
 * GET /api/vendors/export-csv: the vendors (of a company; active unless asked) with masked numbers,
 * or with `full` (ADMIN only) the full numbers, the export recorded on every vendor it shows.
 */
export async function exportVendorsCsv(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<string> {
  authorize(actor, 'vendors.read');
  const { companyId, includeInactive, full } = parseInput(VendorExportInput, query);
  if (full && !can(actor, 'vendors.exportFull'))
    throw new AppError('FORBIDDEN', 'Only an ADMIN may export the full bank numbers');
  let q = inCompanies(vendorRows(app), await companyScope(app, actor));
  if (companyId !== undefined) q = q.where('v.company_id', '=', companyId);
  if (!includeInactive) q = q.where('v.active', '=', true);
  const rows = (await q.orderBy(sql`lower(v.name)`).orderBy('v.id').execute()).map(toDto);
  const banking = full
    ? await fullBanking(app, actor, rows, { companyId: companyId ?? null, includeInactive })
    : null;
  // The masked numbers of the read model, or the full ones opened from each vendor's stream.
  const numbers = (
    v: VendorDto,
  ): Pick<VendorDto, 'routingNumber' | 'accountNumber' | 'accountType' | 'bankName'> => {
    if (!banking) return v;
    const b = banking.get(v.id);
    return {
      routingNumber: b?.routingNumber ?? null,
      accountNumber: b?.accountNumber ?? null,
      accountType: b?.accountType ?? null,
      bankName: b?.bankName ?? null,
    };
  };
  return stringifyCsv(
    rows.map((v) => {
      const n = numbers(v);
      return [
        String(v.id),
        cell(v.name),
        cell(v.companyName),
        v.qbVendorId,
        cell(v.email),
        cell(v.phone),
        v.active ? 'true' : 'false',
        n.routingNumber ?? '',
        n.accountNumber ?? '',
        n.accountType ?? '',
        cell(n.bankName),
      ];
    }),
    { header: true, columns: EXPORT_COLUMNS },
  );
}

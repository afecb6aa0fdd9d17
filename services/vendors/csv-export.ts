// The vendors as CSV (spec 2 §7 Vendors): what an import (csv-import.ts) reads back once the masked
// numbers are filled in.
import { stringify as stringifyCsv } from 'csv-stringify/sync';
import { sql } from 'kysely';
import { VendorExportInput } from '../../schema/vendors/commands.js';
import type { AppServices } from '../app/context.js';
import { companyScope } from '../app/staff-scope.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { parseInput } from '../shared/errors.js';
import { inCompanies, toDto, vendorRows } from './vendor-rows.js';

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

/** GET /api/vendors/export-csv: the vendors (of a company; active unless asked) with masked numbers. */
export async function exportVendorsCsv(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<string> {
  authorize(actor, 'vendors.read');
  const { companyId, includeInactive } = parseInput(VendorExportInput, query);
  let q = inCompanies(vendorRows(app), await companyScope(app, actor));
  if (companyId !== undefined) q = q.where('v.company_id', '=', companyId);
  if (!includeInactive) q = q.where('v.active', '=', true);
  const rows = (await q.orderBy(sql`lower(v.name)`).orderBy('v.id').execute()).map(toDto);
  return stringifyCsv(
    rows.map((v) => [
      String(v.id),
      cell(v.name),
      cell(v.companyName),
      v.qbVendorId,
      cell(v.email),
      cell(v.phone),
      v.active ? 'true' : 'false',
      v.routingNumber ?? '',
      v.accountNumber ?? '',
      v.accountType ?? '',
      cell(v.bankName),
    ]),
    { header: true, columns: EXPORT_COLUMNS },
  );
}

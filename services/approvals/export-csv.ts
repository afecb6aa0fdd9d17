// GET /approvals/export and GraphQL's approvalsExport: the filtered list as CSV.
import { stringify as stringifyCsv } from 'csv-stringify/sync';
import { ApprovalExportInput } from '../../schema/approvals/commands.js';
import type { AppServices } from '../app/context.js';
import { companyScope } from '../app/staff-scope.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { parseInput } from '../shared/errors.js';
import { filtered, scopeFilter } from './list.js';
import { approvalRows, toDtos } from './rows.js';

/** Spreadsheet apps run a cell that starts with = + - @ (or a tab or CR) as a formula: such text is quoted with '. */
const cell = (v: string | null) => (v && /^[=+\-@\t\r]/.test(v) ? `'${v}` : (v ?? ''));
export const APPROVAL_EXPORT_MAX = 50_000;
export const APPROVAL_EXPORT_FILENAME = 'approvals-export.csv';

/** The export as a file (GraphQL's approvalsExport; REST streams the same CSV as an attachment). */
export async function approvalsExportFile(app: AppServices, actor: Actor | null, query: unknown) {
  const content = await exportApprovalsCsv(app, actor, query);
  return { filename: APPROVAL_EXPORT_FILENAME, contentType: 'text/csv; charset=utf-8', content };
}

/** GET /approvals/export: the filtered list as CSV (newest first, at most 50,000 rows). */
export async function exportApprovalsCsv(
  app: AppServices,
  actor: Actor | null,
  query: unknown,
): Promise<string> {
  authorize(actor, 'approvals.read');
  const f = parseInput(ApprovalExportInput, query);
  const companyIds = scopeFilter(await companyScope(app, actor));
  const rows = await toDtos(
    app,
    await filtered(approvalRows(app), { ...f, companyIds })
      .orderBy('a.created_at', 'desc')
      .orderBy('a.id', 'desc')
      .limit(APPROVAL_EXPORT_MAX)
      .execute(),
  );
  return stringifyCsv(
    rows.map((a) => [
      a.id,
      cell(a.companyName),
      a.status,
      a.priority,
      String(a.billCount),
      String(a.approvedBillCount),
      a.totalAmount.toFixed(2),
      a.approvedAmount.toFixed(2),
      cell(a.managerName),
      // Bill ids come from QuickBooks and may start with '-'.
      cell(a.billIds),
      cell(a.approvedBillIds),
      a.awaitingSecondApproval ? 'yes' : 'no',
      cell(a.rejectionReason),
      a.createdAt,
      a.approvalDate ?? '',
      a.rejectionDate ?? '',
    ]),
    {
      header: true,
      columns: [
        'ID',
        'Company',
        'Status',
        'Priority',
        'Processed Bills',
        'Approved Bills',
        'Processed Amount',
        'Approved Amount',
        'Manager',
        'Bill IDs',
        'Approved Bill IDs',
        'Awaiting Second Approval',
        'Rejection Reason',
        'Created',
        'Approved',
        'Rejected',
      ],
    },
  );
}

// An approval's audit bundle (GET …/approvals/{id}/audit-bundle; ADMIN, MODERATOR): the file
// `npm run audit -- export` writes, which tools/audit-verifier.mjs checks. A file, so plain HTTP on
// the REST path like the other downloads; the server records each export on the approval's history.
import { downloadFile } from '../../../lib/transfer';

const A = '/api/bill-approval/approvals';

export const auditBundlePath = (approvalId: string) => `${A}/${encodeURIComponent(approvalId)}/audit-bundle`;

/** Downloads the bundle under the server's file name (audit-<id>.json); resolves with that name. */
export function downloadAuditBundle(approvalId: string): Promise<string> {
  return downloadFile(
    auditBundlePath(approvalId),
    `audit-${approvalId}.json`,
    'Unable to export the audit bundle. Please try again.',
  );
}

// "Export audit bundle" on the approval detail: for the roles holding 'approvals.audit' (ADMIN,
// MODERATOR; the server checks again, this only hides it). Downloads the bundle, then tells the page
// (`onExported`), which re-reads the history: the export is a step of it.
import { FileDown } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../../../components/ui/button';
import { toast } from '../../../components/ui/use-toast';
import type { Role } from '../../../types/api';
import { downloadAuditBundle } from '../api/audit';

/** The roles of the server's 'approvals.audit' (services/modules/approval.ts). */
export const AUDIT_ROLES: readonly Role[] = ['ADMIN', 'MODERATOR'];

export const mayExportAudit = (role: Role | null | undefined) => !!role && AUDIT_ROLES.includes(role);

export function AuditExportButton({
  approvalId,
  role,
  onExported,
}: {
  approvalId: string;
  role: Role | null | undefined;
  onExported?: () => void;
}) {
  const [busy, setBusy] = useState(false);
  if (!mayExportAudit(role)) return null;

  async function run() {
    setBusy(true);
    try {
      const name = await downloadAuditBundle(approvalId);
      toast.success('Audit bundle downloaded', name);
      onExported?.();
    } catch (err) {
      toast.error(
        err instanceof Error && err.message ? err.message : 'Unable to export the audit bundle.',
        'Export failed',
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <Button variant="outline" size="sm" onClick={run} disabled={busy} data-testid="export-audit-bundle">
      <FileDown aria-hidden="true" />
      Export audit bundle
    </Button>
  );
}

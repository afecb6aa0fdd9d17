// NACHA Information: the current file's batch number, name, time, effective date (same-day or not,
// and why it is not the date asked for) and processing status, its download, Regenerate for staff, what to fix while a generation waits on a fix, the
// earlier versions with their downloads, the current step's e-mail link (sent again or the step
// confirmed in the app by staff: payment-link-actions.tsx), and the penny test. Shown by nachaCardShown. The downloads
// are offered only to the roles that may download the files; Regenerate shows disabled, saying why,
// once the file is at the bank. For a company that sends its files over SFTP the card says where the
// file is on its way to the bank (bank-delivery.tsx), with Send now for an ADMIN while it waits, and
// asks nobody to upload it by hand; the file stays downloadable.
import { Download, RefreshCw } from 'lucide-react';
import { type ReactNode, useCallback, useState } from 'react';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { Input } from '../../../components/ui/input';
import { Label } from '../../../components/ui/label';
import { toast } from '../../../components/ui/use-toast';
import { useGqlMutation } from '../../../lib/use-graphql';
import { formatCurrency } from '../../../lib/utils';
import { downloadNachaFile, type PaymentView, RegenerateNacha } from '../api/payments';
import { formatDate, formatDateTime, regenerateBlockedReason } from '../utils/approval-rules';
import { deliveryWords } from '../utils/delivery-words';
import { earliestEffectiveDate, effectiveWords } from '../utils/effective-date';
import { nachaCardShown } from '../utils/payment-rules';
import { BankDeliveryLine } from './bank-delivery';
import { PaymentLinkActions } from './payment-link-actions';
import { PennyTest } from './penny-test';

const PROCESSING: Record<string, { label: string; className: string }> = {
  REQUESTED: { label: 'Generating', className: 'bg-amber-100 text-amber-900' },
  GENERATED: { label: 'Generated', className: 'bg-green-100 text-green-900' },
  FAILED: { label: 'Needs attention', className: 'bg-red-100 text-red-900' },
};

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-muted-foreground">{label}</dt>
      <dd className="[overflow-wrap:anywhere]">{children}</dd>
    </>
  );
}

/**
 * Regenerate (the card, the detail's header, the list's row menu): the server's message in the
 * toast, its refusal under the spec's title. The write re-reads the approval through the cache.
 */
export function useRegenerateNacha(): (id: string, effectiveDate?: string) => Promise<void> {
  const regenerate = useGqlMutation(RegenerateNacha, 'An unexpected error occurred');
  return useCallback(
    async (id: string, effectiveDate?: string) => {
      try {
        const answer = await regenerate(effectiveDate ? { id, effectiveDate } : { id });
        toast.success(
          'NACHA file regenerated successfully',
          answer.regenerateNacha.message || 'The NACHA file has been regenerated and is ready for download',
        );
      } catch (err) {
        toast.error(
          err instanceof Error && err.message ? err.message : 'An unexpected error occurred',
          'Failed to regenerate NACHA file',
        );
      }
    },
    [regenerate],
  );
}

export async function runDownload(
  url: string,
  fileName: string | null,
  done = 'NACHA file download started',
) {
  try {
    await downloadNachaFile(url, fileName);
    toast.success(done);
  } catch (err) {
    toast.error(
      err instanceof Error && err.message ? err.message : 'Unable to download the file. Please try again.',
      'Download failed',
    );
  }
}

export function NachaCard({
  payment: p,
  canManage,
  canDownload,
  canSendNow = false,
}: {
  payment: PaymentView;
  /** ADMIN or MODERATOR on a status from APPROVED through PAYMENT_COMPLETED. */
  canManage: boolean;
  /** The viewer's role may download the stored files (ADMIN, MODERATOR). */
  canDownload: boolean;
  /** ADMIN, on the approval as it is now: may send the company's waiting files to the bank now. */
  canSendNow?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const [effectiveDate, setEffectiveDate] = useState('');
  const runRegenerate = useRegenerateNacha();
  if (!nachaCardShown(p)) return null;
  const status = p.nachaProcessingStatus ? PROCESSING[p.nachaProcessingStatus] : null;
  const problems = p.nachaProblems ?? [];
  const skipped = p.nachaSkippedBills ?? [];
  const earlier = (p.nachaFiles ?? []).filter((f) => /^payment$/i.test(f.kind) && !f.current);
  const atBank = regenerateBlockedReason(p.status);
  const systemSends = p.bankDelivery
    ? (deliveryWords(p.bankDelivery, p.status)?.systemSends ?? false)
    : false;

  async function regenerate() {
    setBusy(true);
    await runRegenerate(p.id, effectiveDate || undefined);
    setBusy(false);
  }

  return (
    <Card data-testid="nacha-card">
      <CardHeader className="flex flex-row flex-wrap items-center justify-between gap-2">
        <CardTitle as="h2">NACHA Information</CardTitle>
        {status ? (
          <Badge className={`border-transparent ${status.className}`} data-testid="nacha-processing-status">
            {status.label}
          </Badge>
        ) : null}
      </CardHeader>
      <CardContent className="grid gap-4 text-sm">
        {p.nachaFileGenerated || p.nachaFileName || p.nachaBatchNumber !== null ? (
          <dl className="grid grid-cols-1 gap-x-3 gap-y-1 sm:grid-cols-[auto_1fr]">
            <Row label="Batch number">{p.nachaBatchNumber ?? 'N/A'}</Row>
            <Row label="File name">
              <span className="font-mono text-xs" data-testid="nacha-file-name">
                {p.nachaFileName ?? 'N/A'}
              </span>
            </Row>
            <Row label="Generated">{formatDateTime(p.nachaGeneratedAt)}</Row>
            {p.nachaVersion ? <Row label="Version">{p.nachaVersion}</Row> : null}
            {p.nachaEffectiveDate ? (
              <Row label="Effective date">
                <span data-testid="nacha-effective">
                  {effectiveWords(p.nachaEffectiveDate, p.nachaSameDay) ?? formatDate(p.nachaEffectiveDate)}
                </span>
                {p.nachaDateNote ? (
                  <span className="block text-muted-foreground" data-testid="nacha-date-note">
                    {p.nachaDateNote}
                  </span>
                ) : null}
              </Row>
            ) : null}
            {p.nachaEntryCount !== null && p.nachaEntryCount !== undefined ? (
              <Row label="Entries">{p.nachaEntryCount}</Row>
            ) : null}
            {p.nachaTotalAmount !== null && p.nachaTotalAmount !== undefined ? (
              <Row label="Total credits">{formatCurrency(p.nachaTotalAmount)}</Row>
            ) : null}
            {p.nachaFileSharedWith ? (
              <Row label="Shared file">
                <span data-testid="nacha-shared-with">
                  This file also carries the batches of {p.nachaFileSharedWith} other{' '}
                  {p.nachaFileSharedWith === 1 ? 'approval' : 'approvals'} made for the same cut-off window:
                  it goes to the bank once, and each approval is confirmed on its own.
                </span>
              </Row>
            ) : null}
          </dl>
        ) : p.nachaProcessingStatus === 'REQUESTED' ||
          (p.status === 'NACHA_PENDING' && problems.length === 0) ? (
          <p className="text-muted-foreground">The NACHA file is being generated.</p>
        ) : p.status === 'APPROVED' && problems.length === 0 ? (
          <p className="text-muted-foreground">No NACHA file has been generated yet.</p>
        ) : null}

        {p.nachaProcessingStatus === 'FAILED' && problems.length > 0 ? (
          <div
            role="alert"
            className="grid gap-1 rounded-md border border-destructive/50 bg-destructive/5 p-3 text-destructive"
          >
            <p className="font-medium">
              The NACHA file could not be generated. Fix the following, then regenerate:
            </p>
            <ul className="list-disc pl-5" data-testid="nacha-problems">
              {problems.map((x) => (
                <li key={`${x.kind}-${x.vendorName ?? ''}-${x.message}`}>
                  {x.vendorName ? `${x.vendorName}: ` : ''}
                  {x.message}
                </li>
              ))}
            </ul>
          </div>
        ) : null}

        {skipped.length > 0 ? (
          <div className="grid gap-1 rounded-md border border-amber-300 bg-amber-50 p-3 text-amber-950">
            <p className="font-medium">Left out of the file:</p>
            <ul className="list-disc pl-5" data-testid="nacha-skipped">
              {skipped.map((b) => (
                <li key={b.billId}>
                  Bill {b.docNumber ?? b.billId}: {b.reason}
                </li>
              ))}
            </ul>
          </div>
        ) : null}

        <div className="flex flex-wrap items-end gap-2">
          {p.nachaFileUrl && canDownload ? (
            <Button variant="outline" onClick={() => runDownload(p.nachaFileUrl!, p.nachaFileName)}>
              <Download aria-hidden="true" />
              Download NACHA File
            </Button>
          ) : null}
          {canManage && atBank === null ? (
            <div className="grid gap-1">
              <Label htmlFor="regenerate-effective-date" className="text-xs">
                Effective date (empty: next banking day)
              </Label>
              <Input
                id="regenerate-effective-date"
                type="date"
                className="h-9 w-44"
                value={effectiveDate}
                min={earliestEffectiveDate(false)}
                onChange={(e) => setEffectiveDate(e.target.value)}
                disabled={busy}
              />
            </div>
          ) : null}
          {canManage ? (
            <Button
              variant="outline"
              onClick={regenerate}
              disabled={busy || atBank !== null}
              aria-describedby={atBank ? 'nacha-regenerate-blocked' : undefined}
            >
              <RefreshCw aria-hidden="true" className={busy ? 'animate-spin' : undefined} />
              Regenerate NACHA File
            </Button>
          ) : null}
        </div>
        {canManage && atBank ? (
          <p id="nacha-regenerate-blocked" className="text-muted-foreground" data-testid="regenerate-blocked">
            {atBank}
          </p>
        ) : null}

        <BankDeliveryLine payment={p} canSendNow={canSendNow} />

        <PaymentLinkActions payment={p} canManage={canManage} systemUploads={systemSends} />

        {earlier.length > 0 ? (
          <div className="grid gap-2">
            <h3 className="font-medium">Earlier versions</h3>
            <ul className="grid gap-2" data-testid="nacha-earlier">
              {earlier.map((f) => (
                <li
                  key={f.fileId}
                  className="flex flex-wrap items-center justify-between gap-2 rounded-md border px-3 py-2"
                >
                  <span className="min-w-0 [overflow-wrap:anywhere]">
                    v{f.version} · <span className="font-mono text-xs">{f.fileName}</span> · batch{' '}
                    {f.batchNumber} · {formatDateTime(f.generatedAt)}
                  </span>
                  {canDownload ? (
                    <Button
                      size="sm"
                      variant="ghost"
                      onClick={() => runDownload(f.url, f.fileName)}
                      aria-label={`Download version ${f.version}`}
                    >
                      <Download aria-hidden="true" />
                      Download
                    </Button>
                  ) : null}
                </li>
              ))}
            </ul>
          </div>
        ) : null}

        <PennyTest payment={p} canGenerate={canManage} canDownload={canDownload} />
      </CardContent>
    </Card>
  );
}

// The penny test of the NACHA card: the generator for staff, and the last test's
// batch number, file name, amount, vendors tested, time and its download (for the roles that may
// download the files). A failure says what to fix in a toast that stays 8 s.
import { Coins, Download } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../../../components/ui/button';
import { toast } from '../../../components/ui/use-toast';
import { ApiError } from '../../../lib/errors';
import { useGqlMutation } from '../../../lib/use-graphql';
import { formatCurrency } from '../../../lib/utils';
import { downloadNachaFile, GeneratePennyTest, type PaymentView } from '../api/payments';
import { formatDateTime } from '../utils/approval-rules';
import { PENNY_TEST_ERROR_MS, pennyTestFailure } from '../utils/payment-rules';

export function PennyTest({
  payment: p,
  canGenerate,
  canDownload,
}: {
  payment: PaymentView;
  canGenerate: boolean;
  /** The viewer's role may download the stored files (ADMIN, MODERATOR). */
  canDownload: boolean;
}) {
  const generatePennyTest = useGqlMutation(GeneratePennyTest, 'An unexpected error occurred');
  const [running, setRunning] = useState(false);
  const [downloading, setDownloading] = useState(false);

  async function generate() {
    setRunning(true);
    try {
      const r = (await generatePennyTest({ id: p.id })).generatePennyTest;
      toast.success(
        'Penny Test Generated',
        `Test amount ${formatCurrency(r.testAmount)} to ${r.vendorCount} ${r.vendorCount === 1 ? 'vendor' : 'vendors'}`,
      );
    } catch (err) {
      const message = err instanceof Error ? err.message : 'An unexpected error occurred';
      const { title, description } = pennyTestFailure(message);
      toast({ variant: 'destructive', title, description, duration: PENNY_TEST_ERROR_MS });
    } finally {
      setRunning(false);
    }
  }

  async function download() {
    if (!p.pennyTestFileUrl) return;
    setDownloading(true);
    try {
      await downloadNachaFile(p.pennyTestFileUrl, p.pennyTestFileName);
      toast.success('Penny test file download started');
    } catch (err) {
      toast.error(
        err instanceof ApiError ? err.message : 'Unable to download the file. Please try again.',
        'Download failed',
      );
    } finally {
      setDownloading(false);
    }
  }

  return (
    <section
      aria-label="Penny test"
      className="grid gap-3 rounded-md border p-3 text-sm"
      data-testid="penny-test"
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="font-medium">Penny Test</h3>
        {canGenerate ? (
          <Button size="sm" variant="outline" onClick={generate} disabled={running}>
            <Coins aria-hidden="true" />
            {running ? 'Generating...' : 'Generate Penny Test'}
          </Button>
        ) : null}
      </div>
      {p.pennyTestGenerated ? (
        <>
          <dl className="grid grid-cols-1 gap-x-3 gap-y-1 sm:grid-cols-[auto_1fr]">
            <dt className="text-muted-foreground">Batch number</dt>
            <dd>{p.pennyTestBatchNumber ?? 'N/A'}</dd>
            <dt className="text-muted-foreground">File name</dt>
            <dd className="font-mono text-xs [overflow-wrap:anywhere]">{p.pennyTestFileName ?? 'N/A'}</dd>
            <dt className="text-muted-foreground">Test amount</dt>
            <dd data-testid="penny-amount">{formatCurrency(p.pennyTestAmount)}</dd>
            <dt className="text-muted-foreground">Vendors tested</dt>
            <dd>{p.pennyTestVendorCount ?? 0}</dd>
            <dt className="text-muted-foreground">Generated</dt>
            <dd>{formatDateTime(p.pennyTestGeneratedAt)}</dd>
          </dl>
          {p.pennyTestFileUrl && canDownload ? (
            <Button size="sm" variant="outline" className="w-fit" onClick={download} disabled={downloading}>
              <Download aria-hidden="true" />
              Download Penny Test File
            </Button>
          ) : null}
        </>
      ) : (
        <p className="text-muted-foreground">
          A penny test sends a few cents to each vendor with complete banking, to check the accounts before
          the payment.
        </p>
      )}
    </section>
  );
}

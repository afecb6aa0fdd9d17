// One bill of an approval: vendor, document number, id, total, due date, the
// invoice banner with its download, vendor contacts, the ACH box and its navigation, the vendor's
// address and the line items.
import { Download, FileText } from 'lucide-react';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { Badge } from '../../../components/ui/badge';
import { Button } from '../../../components/ui/button';
import { toast } from '../../../components/ui/use-toast';
import { formatCurrency } from '../../../lib/utils';
import { type ApprovalBill, downloadInvoice } from '../api/approvals';
import { formatDate } from '../utils/approval-rules';

function AchBox({ bill, approved }: { bill: ApprovalBill; approved: boolean }) {
  const navigate = useNavigate();
  const ach = bill.achStatus;
  return (
    <div className="grid gap-2 rounded-md border p-3 text-sm" data-testid="ach-box">
      <p className="font-medium">ACH Banking Status</p>
      {ach.hasBankingInfo ? (
        <>
          <Badge className="border-transparent bg-green-700 text-white">Ready for ACH</Badge>
          <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
            <dt className="text-muted-foreground">Bank</dt>
            <dd>{ach.bankName ?? 'N/A'}</dd>
            <dt className="text-muted-foreground">Account type</dt>
            <dd>{ach.accountType === 'savings' ? 'Savings' : 'Checking'}</dd>
            <dt className="text-muted-foreground">Routing</dt>
            <dd className="font-mono">{ach.routingNumber ?? 'N/A'}</dd>
            <dt className="text-muted-foreground">Account</dt>
            <dd className="font-mono">{ach.accountNumber ?? 'N/A'}</dd>
          </dl>
        </>
      ) : (
        <>
          <button
            type="button"
            className="w-fit rounded-md bg-destructive px-2 py-0.5 text-xs font-medium text-white hover:bg-destructive/90 focus-visible:ring-[3px] focus-visible:ring-ring/50 focus-visible:outline-none"
            onClick={() => {
              if (ach.vendorId) navigate(`/vendors/${ach.vendorId}/edit-banking`);
              else
                toast({
                  variant: 'destructive',
                  title: 'Vendor not found',
                  description: 'Unable to navigate to vendor banking page',
                });
            }}
          >
            Missing Banking Info
          </button>
          <p className="text-xs text-muted-foreground">
            Banking details are configured on the vendor (from the accounting service).
            {approved ? '' : ' Banking setup is required for NACHA generation.'}
          </p>
        </>
      )}
    </div>
  );
}

export function BillCard({
  approvalId,
  bill,
  approved,
}: {
  approvalId: string;
  bill: ApprovalBill;
  approved: boolean;
}) {
  const [downloading, setDownloading] = useState(false);
  const vendor = bill.vendorName ?? bill.vendorCompanyName ?? 'Unknown Vendor';
  const addr = bill.vendorAddress;
  const address = addr
    ? [addr.line1, addr.city, [addr.countrySubDivisionCode, addr.postalCode].filter(Boolean).join(' ')]
        .filter(Boolean)
        .join(', ')
    : '';

  async function download() {
    if (!bill.invoiceAvailable) {
      toast({
        variant: 'destructive',
        title: 'Invoice not available',
        description: 'No invoice URL found for this bill',
      });
      return;
    }
    setDownloading(true);
    try {
      await downloadInvoice(approvalId, bill);
      toast.success('Invoice download started');
    } catch {
      toast({
        variant: 'destructive',
        title: 'Download failed',
        description: 'Unable to download invoice. Please try again.',
      });
    } finally {
      setDownloading(false);
    }
  }

  return (
    <article
      className="grid gap-3 rounded-lg border p-4"
      data-testid={`bill-card-${bill.id}`}
      aria-label={`Bill ${bill.id}`}
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div>
          <h3 className="font-medium">{vendor}</h3>
          <p className="text-sm text-muted-foreground">
            Doc # {bill.docNumber || 'N/A'} · Bill ID {bill.id}
          </p>
        </div>
        <div className="text-right">
          <p className="font-semibold">{formatCurrency(bill.totalAmt, bill.currency ?? undefined)}</p>
          <p className="text-sm text-muted-foreground">Due {formatDate(bill.dueDate)}</p>
        </div>
      </div>
      {bill.invoiceAvailable ? (
        <div className="flex items-center justify-between gap-2 rounded-md border border-blue-200 bg-blue-50 px-3 py-2 text-sm text-blue-900">
          <span className="flex items-center gap-2">
            <FileText className="size-4" aria-hidden="true" />
            Invoice Available
          </span>
          <Button
            size="sm"
            variant="outline"
            onClick={download}
            disabled={downloading}
            aria-label={`Download invoice of bill ${bill.id}`}
          >
            <Download aria-hidden="true" />
            Download
          </Button>
        </div>
      ) : (
        <div className="flex items-center justify-between gap-2 rounded-md border px-3 py-2 text-sm text-muted-foreground">
          <span>No invoice attached</span>
          <Button
            size="sm"
            variant="ghost"
            onClick={download}
            aria-label={`Download invoice of bill ${bill.id}`}
          >
            <Download aria-hidden="true" />
            Download
          </Button>
        </div>
      )}
      <div className="grid gap-3 md:grid-cols-2">
        <div className="grid content-start gap-1 text-sm">
          <p>
            <span className="text-muted-foreground">Email: </span>
            {bill.vendorEmail ?? 'N/A'}
          </p>
          <p>
            <span className="text-muted-foreground">Phone: </span>
            {bill.vendorPhone ?? 'N/A'}
          </p>
          <p>
            <span className="text-muted-foreground">Address: </span>
            {address || 'N/A'}
          </p>
        </div>
        <AchBox bill={bill} approved={approved} />
      </div>
      {bill.lines.length > 0 ? (
        <table className="w-full text-sm">
          <caption className="sr-only">Line items of bill {bill.id}</caption>
          <thead>
            <tr className="border-b text-left">
              <th className="py-1 font-medium">Description</th>
              <th className="py-1 font-medium">Qty</th>
              <th className="py-1 font-medium">Item</th>
              <th className="py-1 text-right font-medium">Amount</th>
            </tr>
          </thead>
          <tbody>
            {bill.lines.map((l) => (
              <tr key={l.id} className="border-b last:border-0">
                <td className="py-1">{l.description || 'Line Item'}</td>
                <td className="py-1">{l.qty ?? '—'}</td>
                <td className="py-1">{l.itemName ?? l.accountName ?? '—'}</td>
                <td className="py-1 text-right">{formatCurrency(l.amount, bill.currency ?? undefined)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </article>
  );
}

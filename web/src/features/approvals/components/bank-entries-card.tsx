// What the bank did with the approval's entries after the file, beside the NACHA card: each entry it
// returned (the vendor was not paid: its code and Nacha's words, when) and each notification of
// change (the corrected account's last four digits and the date the change is due by). Shown only
// when the bank sent something back; never a full account number, only the last four digits.
import { Badge } from '../../../components/ui/badge';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card';
import { formatCurrency } from '../../../lib/utils';
import type { BankEntry, PaymentView } from '../api/payments';
import { formatDate, formatDateTime } from '../utils/approval-rules';

/** "Returned R03 — No account / unable to locate account". */
export function returnWords(e: BankEntry): string | null {
  if (e.status !== 'returned' || !e.returnCode) return null;
  return `Returned ${e.returnCode}${e.returnDescription ? ` — ${e.returnDescription}` : ''}`;
}

/** "C01 Incorrect DFI account number: account ending 0102 proposed, due by Dec 14, 2026". */
export function correctionWords(e: BankEntry): string | null {
  if (!e.changeCode) return null;
  const what = e.correctedAccountLast4
    ? `account ending ${e.correctedAccountLast4} proposed`
    : 'bank details to correct';
  const due = e.correctionDueBy ? `, due by ${formatDate(e.correctionDueBy)}` : '';
  return `${e.changeCode}${e.changeDescription ? ` ${e.changeDescription}` : ''}: ${what}${due}`;
}

export function BankEntriesCard({
  payment,
}: {
  payment: Pick<PaymentView, 'bankEntries' | 'bankPaymentState'>;
}) {
  const entries = payment.bankEntries ?? [];
  if (entries.length === 0) return null;
  return (
    <Card data-testid="bank-entries-card">
      <CardHeader className="flex flex-row flex-wrap items-center justify-between gap-2">
        <CardTitle as="h2">Returns and Corrections</CardTitle>
        {payment.bankPaymentState ? (
          <Badge className="border-transparent bg-red-100 text-red-900">
            {payment.bankPaymentState === 'RETURNED' ? 'Every payment returned' : 'Partly returned'}
          </Badge>
        ) : null}
      </CardHeader>
      <CardContent className="text-sm">
        <ul className="divide-y">
          {entries.map((e) => {
            const returned = returnWords(e);
            const corrected = correctionWords(e);
            return (
              <li key={e.traceNumber} className="grid gap-1 py-2" data-testid={`bank-entry-${e.traceNumber}`}>
                <div className="flex flex-wrap items-baseline justify-between gap-2">
                  <span className="font-medium">{e.vendorName}</span>
                  <span className="tabular-nums">{formatCurrency(e.amountCents / 100)}</span>
                </div>
                <span className="text-xs text-muted-foreground">
                  Account ending {e.accountLast4} · {e.fileName}
                </span>
                {returned ? (
                  <span className="text-red-800">
                    {returned}
                    {e.returnedAt ? (
                      <span className="text-muted-foreground"> · {formatDateTime(e.returnedAt)}</span>
                    ) : null}
                  </span>
                ) : null}
                {corrected ? <span className="text-amber-900">{corrected}</span> : null}
              </li>
            );
          })}
        </ul>
      </CardContent>
    </Card>
  );
}

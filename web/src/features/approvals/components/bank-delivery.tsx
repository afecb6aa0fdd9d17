// The file's delivery to the bank over SFTP, on the NACHA card: where the file is in plain words
// (utils/delivery-words.ts) and, for an ADMIN while it waits for its cut-off window, Send now, which
// sends every file of the company waiting for its window (the bank's trigger cut-off). The toast
// says the server's message or its refusal.
import { Send } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../../../components/ui/button';
import { ConfirmActionDialog } from '../../../components/ui/confirm-action-dialog';
import { useGqlMutation } from '../../../lib/use-graphql';
import { type PaymentView, SendWaitingFilesNow } from '../api/payments';
import { deliveryWords } from '../utils/delivery-words';

export function BankDeliveryLine({ payment: p, canSendNow }: { payment: PaymentView; canSendNow: boolean }) {
  const [open, setOpen] = useState(false);
  const send = useGqlMutation(SendWaitingFilesNow, 'The waiting files could not be sent');
  const words = p.bankDelivery ? deliveryWords(p.bankDelivery, p.status) : null;
  if (!words) return null;
  return (
    <div className="grid gap-2" data-testid="bank-delivery">
      <p
        role={words.problem ? 'alert' : undefined}
        className={words.problem ? 'text-destructive [overflow-wrap:anywhere]' : '[overflow-wrap:anywhere]'}
        data-testid="bank-delivery-words"
      >
        {words.text}
      </p>
      {words.waiting && canSendNow ? (
        <>
          <div>
            <Button variant="outline" size="sm" onClick={() => setOpen(true)}>
              <Send aria-hidden="true" />
              Send now
            </Button>
          </div>
          <ConfirmActionDialog
            open={open}
            onOpenChange={setOpen}
            title="Send the company's waiting files to the bank now?"
            description="Every file of the company waiting for its cut-off window goes to the bank at once, this one included."
            actionLabel="Send now"
            busyLabel="Sending…"
            run={async () => ({ message: (await send({ companyId: p.companyId })).sendWaitingFilesNow })}
            successMessage="The waiting files will be sent now"
            errorTitle="Not sent"
            errorFallback="The waiting files could not be sent"
          />
        </>
      ) : null}
    </div>
  );
}

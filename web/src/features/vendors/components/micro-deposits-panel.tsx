// The vendor's side of a held change, for staff: whether its contact on record was told, and the
// micro-deposit check — two credits under $1.00 to the new account, in a file staff upload to the
// bank, with a link to the vendor's contact to enter them (the right amounts make the change live).
// Staff start it and download its file; the amounts are never shown here. The server refuses what it
// must (no contact on record, the day's penny-test limits), in its own words.
import { Download, Send } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../../../components/ui/button';
import { ConfirmActionDialog } from '../../../components/ui/confirm-action-dialog';
import { toast } from '../../../components/ui/use-toast';
import { useGqlMutation } from '../../../lib/use-graphql';
import {
  type BankingChange,
  downloadMicroDepositFile,
  StartVendorMicroDeposits,
  VENDOR_MESSAGES,
} from '../api/vendors';
import { formatDateTime } from '../utils/vendor-rules';

const STATUS: Record<string, string> = {
  sent: 'Sent: waiting for the vendor to enter the amounts',
  confirmed: 'Confirmed by the vendor',
  locked: 'Locked: the vendor ran out of tries',
};

function noticeText(notice: string | null): string | null {
  if (notice === 'sent')
    return 'The vendor’s e-mail on record before the change was told, with a “this was not me” link.';
  if (notice === 'no-contact')
    return 'The vendor had no e-mail on record before the change: nobody could be told, and micro-deposits cannot be sent.';
  return null;
}

/** A mail the vendor may not have received: said as a warning, with what to do. */
const NOTICE_UNDELIVERED =
  'The notice to the vendor’s e-mail on record was not delivered: the vendor may not know of this change. Check with the vendor on a phone number already on file before approving it.';
const LINK_UNDELIVERED =
  'The e-mail with the vendor’s micro-deposit link was not delivered: the vendor cannot enter the amounts. Retry it on the operations page, or check with the vendor by phone.';

export function MicroDepositsPanel({
  vendor,
  change,
  staff,
}: {
  vendor: { id: number; name: string };
  change: Pick<
    BankingChange,
    'changeId' | 'status' | 'source' | 'accountNumber' | 'contactNotice' | 'microDeposits'
  >;
  /** ADMIN or MODERATOR: may start a check and download its file. */
  staff: boolean;
}) {
  const start = useGqlMutation(StartVendorMicroDeposits, 'Failed to start the micro-deposit check');
  const [asking, setAsking] = useState(false);
  const md = change.microDeposits;
  const notice = noticeText(change.contactNotice);
  const mayStart =
    staff &&
    change.status === 'pending' &&
    // A bank's notification of change is an ADMIN's approval, never the vendor's amounts.
    change.source !== 'noc' &&
    change.contactNotice !== 'no-contact' &&
    (md === null || md.status === 'locked');

  async function download() {
    if (!md) return;
    try {
      await downloadMicroDepositFile(md.fileUrl, md.fileName);
      toast.success('Micro-deposit file download started');
    } catch (err) {
      toast.error(err instanceof Error ? err.message : 'An error occurred', 'Download failed');
    }
  }

  return (
    <div className="grid gap-2" data-testid="micro-deposits">
      {notice ? <p data-testid="contact-notice">{notice}</p> : null}
      {change.contactNotice === 'undelivered' ? (
        <p role="alert" data-testid="contact-notice" className="font-medium text-destructive">
          {NOTICE_UNDELIVERED}
        </p>
      ) : null}
      {md ? (
        <div className="grid gap-0.5">
          <p className="font-medium">Micro-deposits: {STATUS[md.status] ?? md.status}</p>
          <p className="text-xs">
            Started by {md.startedByName ?? 'staff'} · {formatDateTime(md.sentAt)} · credits from{' '}
            {md.effectiveDate}
            {md.status === 'sent'
              ? ` · ${md.triesLeft} ${md.triesLeft === 1 ? 'try' : 'tries'} left · the vendor’s link works until ${formatDateTime(md.expiresAt)}`
              : ''}
          </p>
          {md.status === 'sent' && md.linkUndelivered ? (
            <p
              role="alert"
              data-testid="micro-deposit-link-undelivered"
              className="font-medium text-destructive"
            >
              {LINK_UNDELIVERED}
            </p>
          ) : null}
        </div>
      ) : null}
      {(staff && md) || mayStart ? (
        <div className="flex flex-wrap gap-2">
          {staff && md ? (
            <Button size="sm" variant="outline" onClick={download}>
              <Download aria-hidden="true" />
              Download Micro-Deposit File
            </Button>
          ) : null}
          {mayStart ? (
            <Button size="sm" variant="outline" onClick={() => setAsking(true)}>
              <Send aria-hidden="true" />
              {md ? 'Send Micro-Deposits Again' : 'Send Micro-Deposits'}
            </Button>
          ) : null}
        </div>
      ) : null}
      <ConfirmActionDialog
        open={asking}
        onOpenChange={setAsking}
        title="Send Micro-Deposits"
        description={`Two credits under $1.00 go to ${vendor.name}’s new account (${change.accountNumber ?? 'masked'}) in a file you upload to the bank, and the vendor’s e-mail on record gets a link to enter the amounts. The right amounts make the change live.`}
        actionLabel="Send Micro-Deposits"
        busyLabel="Sending..."
        run={async () => {
          // The vendor, its change and its history are re-read through the cache.
          await start({ id: vendor.id, changeId: change.changeId });
          return {};
        }}
        successMessage={VENDOR_MESSAGES.microDepositsStarted}
        errorTitle="Failed to start the micro-deposit check"
      />
    </div>
  );
}

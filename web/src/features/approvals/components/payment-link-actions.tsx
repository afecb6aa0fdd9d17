// The e-mail link of the step the approval waits on (the bank upload at NACHA_GENERATED, the payment
// at BANK_UPLOADED), on the NACHA card: when it was last sent and until when it works, and for staff
// "Send link again" and "Confirm in app", each asking for a reason; the toast says what the server did
// or its refusal as it words it. A step confirmed in the app shows its reason to everyone. When the
// system sends the file to the bank over SFTP, nobody is asked to confirm its upload.
import { CheckCircle2, Mail } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../../../components/ui/button';
import { toast } from '../../../components/ui/use-toast';
import { useGqlMutation } from '../../../lib/use-graphql';
import { ConfirmPaymentStep, type PaymentView, ResendPaymentLink } from '../api/payments';
import { PaymentStepDialog } from './payment-step-dialog';

type Step = 'bank-uploaded' | 'payment-completed';
const STEP_OF: Record<string, Step> = {
  NACHA_GENERATED: 'bank-uploaded',
  BANK_UPLOADED: 'payment-completed',
};
const STEP_WORDS: Record<Step, string> = { 'bank-uploaded': 'bank upload', 'payment-completed': 'payment' };

const day = (iso: string) => new Date(iso).toLocaleDateString('en-US', { month: 'short', day: 'numeric' });

/** "Link sent Dec 6, expires Dec 13", "Link expired Dec 13: send it again", or that none was sent. */
export function linkStanding(
  p: Pick<PaymentView, 'paymentLinkSentAt' | 'paymentLinkExpiresAt'>,
  now: number,
) {
  if (!p.paymentLinkSentAt || !p.paymentLinkExpiresAt)
    return { text: 'No link sent for this step', lapsed: true };
  if (Date.parse(p.paymentLinkExpiresAt) <= now)
    return { text: `Link expired ${day(p.paymentLinkExpiresAt)}: send it again`, lapsed: true };
  return {
    text: `Link sent ${day(p.paymentLinkSentAt)}, expires ${day(p.paymentLinkExpiresAt)}`,
    lapsed: false,
  };
}

export function PaymentLinkActions({
  payment: p,
  canManage,
  now = Date.now(),
  systemUploads = false,
}: {
  payment: PaymentView;
  /** ADMIN or MODERATOR, on the approval as it is now (not a past view). */
  canManage: boolean;
  now?: number;
  /** The system sends the file to the bank (SFTP): the bank upload is not a person's step. */
  systemUploads?: boolean;
}) {
  const [open, setOpen] = useState<'resend' | 'confirm' | null>(null);
  const resend = useGqlMutation(ResendPaymentLink, 'The link could not be sent again');
  const confirm = useGqlMutation(ConfirmPaymentStep, 'The step could not be confirmed');
  const byPeople = STEP_OF[p.status];
  const step = systemUploads && byPeople === 'bank-uploaded' ? undefined : byPeople;
  const reasons = [
    p.bankUploadReason ? `Bank upload confirmed in the app: ${p.bankUploadReason}` : null,
    p.paymentCompletedReason ? `Payment confirmed in the app: ${p.paymentCompletedReason}` : null,
  ].filter((x): x is string => x !== null);
  if (!step && reasons.length === 0) return null;
  const standing = step ? linkStanding(p, now) : null;

  async function run(kind: 'resend' | 'confirm', reason: string) {
    try {
      const message =
        kind === 'resend'
          ? (await resend({ id: p.id, reason })).resendPaymentLink.message
          : (await confirm({ id: p.id, reason, action: step })).confirmPaymentStep.message;
      toast.success(message);
    } catch (err) {
      toast.error(
        err instanceof Error && err.message ? err.message : 'An unexpected error occurred',
        kind === 'resend' ? 'Link not sent' : 'Step not confirmed',
      );
      throw err;
    }
  }

  return (
    <div className="grid gap-2" data-testid="payment-link">
      {reasons.map((r) => (
        <p key={r} className="[overflow-wrap:anywhere]" data-testid="payment-step-reason">
          {r}
        </p>
      ))}
      {step && standing ? (
        <>
          <p
            className={standing.lapsed ? 'text-destructive' : 'text-muted-foreground'}
            data-testid="payment-link-standing"
          >
            {standing.text}
          </p>
          {canManage ? (
            <div className="flex flex-wrap gap-2">
              <Button variant="outline" onClick={() => setOpen('resend')}>
                <Mail aria-hidden="true" />
                Send link again
              </Button>
              <Button variant="outline" onClick={() => setOpen('confirm')}>
                <CheckCircle2 aria-hidden="true" />
                Confirm in app
              </Button>
            </div>
          ) : null}
          {canManage ? (
            <>
              <PaymentStepDialog
                open={open === 'resend'}
                onOpenChange={(o) => setOpen(o ? 'resend' : null)}
                onSubmit={(reason) => run('resend', reason)}
                title={`Send the ${STEP_WORDS[step]} link again`}
                description="Fresh links go to the manager and the recipients; the links already sent keep working until they expire."
                submitLabel="Send link again"
                busyLabel="Sending…"
              />
              <PaymentStepDialog
                open={open === 'confirm'}
                onOpenChange={(o) => setOpen(o ? 'confirm' : null)}
                onSubmit={(reason) => run('confirm', reason)}
                title={
                  step === 'bank-uploaded'
                    ? 'Confirm the bank upload in the app'
                    : 'Confirm the payment in the app'
                }
                description={`You confirm the ${STEP_WORDS[step]} in place of the link’s recipients. Say why: the reason is kept in the history.`}
                submitLabel="Confirm in app"
                busyLabel="Confirming…"
              />
            </>
          ) : null}
        </>
      ) : null}
    </div>
  );
}

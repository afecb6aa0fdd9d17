// The file's delivery to the bank over SFTP in plain words, for the NACHA card: waiting for the
// company's cut-off window, sent by the system (and what the bank answered), refused by the bank, or
// not sent. Times are the bank's clock, New York, as the company's cut-off windows are.
import type { BankDelivery } from '../api/payments';

export interface DeliveryWords {
  text: string;
  /** A refusal or a failure: said as a problem. */
  problem: boolean;
  /** The file waits for its window: an ADMIN may send the company's waiting files now. */
  waiting: boolean;
  /** The system sends the file, or has: nobody is asked to upload it at the bank by hand. */
  systemSends: boolean;
}

const NEW_YORK = 'America/New_York';

function parts(iso: string, options: Intl.DateTimeFormatOptions) {
  const out: Record<string, string> = {};
  for (const p of new Intl.DateTimeFormat('en-US', { timeZone: NEW_YORK, ...options }).formatToParts(
    new Date(iso),
  ))
    out[p.type] = p.value;
  return out;
}

/** "2:30 PM" in New York (built from parts: ICU puts a narrow no-break space before PM). */
export function newYorkTime(iso: string): string {
  const p = parts(iso, { hour: 'numeric', minute: '2-digit', hour12: true });
  return `${p.hour}:${p.minute} ${p.dayPeriod}`;
}

/** "Mon Dec 7" in New York. */
export function newYorkDay(iso: string): string {
  const p = parts(iso, { weekday: 'short', month: 'short', day: 'numeric' });
  return `${p.weekday} ${p.month} ${p.day}`;
}

/** "Dec 7, 10:15 AM" in New York. */
function newYorkMoment(iso: string): string {
  const p = parts(iso, { month: 'short', day: 'numeric' });
  return `${p.month} ${p.day}, ${newYorkTime(iso)}`;
}

/**
 * What the card says of the delivery; null when there is nothing to say (the approval no longer waits
 * for this file: its bank upload was confirmed otherwise, or it was deleted).
 */
export function deliveryWords(d: BankDelivery, approvalStatus: string): DeliveryWords | null {
  if (d.status === 'failed')
    return {
      text: `Not sent: ${d.failure ?? 'the delivery failed'}`,
      problem: true,
      waiting: false,
      systemSends: false,
    };
  if (d.status === 'delivered') {
    if (d.bankAnswer === 'rejected')
      return {
        text: `The bank refused it: ${d.bankText || 'no reason given'}`,
        problem: true,
        waiting: false,
        systemSends: false,
      };
    const when = d.deliveredAt ? ` ${newYorkMoment(d.deliveredAt)}` : '';
    const facts = [d.fileName, d.size === null ? null : `${d.size.toLocaleString('en-US')} bytes`]
      .filter(Boolean)
      .join(', ');
    const how = d.foundThere
      ? `Found in the bank’s inbox${when} (${facts}): sent before, so not sent again`
      : `Sent to the bank${when} (${facts})`;
    const answer =
      d.bankAnswer === 'acknowledged'
        ? ' — the bank acknowledged it'
        : ' — waiting for the bank’s acknowledgement';
    return { text: how + answer, problem: false, waiting: false, systemSends: true };
  }
  // Scheduled: the file waits for its window while the approval waits for this file.
  if (approvalStatus === 'NACHA_GENERATED' && d.windowAt)
    return {
      text: `Waiting for the ${newYorkTime(d.windowAt)} cut-off (New York), ${newYorkDay(d.windowAt)} — sent to the bank by the system then`,
      problem: false,
      waiting: true,
      systemSends: true,
    };
  if (approvalStatus === 'NACHA_PENDING')
    return {
      text: 'The new file goes to the bank by the system at the company’s next cut-off window once it is made',
      problem: false,
      waiting: false,
      systemSends: true,
    };
  return null;
}

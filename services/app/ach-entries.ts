// The kernel's port to the entries of Billflow's files as the bank answered them, kept by the payments
// module (decision 0041): the approvals module reads what the bank returned (to let the bills go, to
// void their QuickBooks payments, to leave them out of a QuickBooks run, to tell the manager) and
// records the voids on the entry, without importing the payments module or writing its streams itself.
import type { PaymentsEvent } from '../../schema/payments/events.js';
import type { CommandContext } from './command-handler.js';

/** The bank's return of one entry, as the payments module recorded it. */
export type ReturnedEntry = Extract<PaymentsEvent, { type: 'PaymentEntryReturned' }>['data'];
export type VoidedBill = Extract<PaymentsEvent, { type: 'PaymentEntryQbVoided' }>['data']['bills'][number];

export interface EntryAnswer {
  returned: ReturnedEntry | null;
  /** The QuickBooks payments voided after the return (null: not yet, or none to void). */
  voided: VoidedBill[] | null;
}

export interface AchEntryAccess {
  /** What the bank did with each entry, by trace number (read from the entries' streams: current). */
  answers(traceNumbers: readonly string[]): Promise<Map<string, EntryAnswer>>;
  /** Records, once, that the QuickBooks payments of a returned entry's bills were voided. */
  recordQbVoids(traceNumber: string, bills: VoidedBill[], ctx: CommandContext): Promise<void>;
}

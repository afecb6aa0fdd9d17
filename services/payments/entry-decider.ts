// One entry of a Billflow file, by its trace number (stream `achentry-<trace>`): the bank returns it
// once (a second return of it, from the same file read again or another, changes nothing), the
// QuickBooks payments of its bills are voided once after a return, and its notifications of change
// are recorded once per file that carries one.
import type { PaymentsEvent } from '../../schema/payments/events.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';

type EntryEvent = Extract<
  PaymentsEvent,
  { type: 'PaymentEntryReturned' | 'PaymentEntryCorrectionReceived' | 'PaymentEntryQbVoided' }
>;
type Facts<T extends EntryEvent['type']> = Extract<EntryEvent, { type: T }>['data'];

export interface EntryState {
  returned: Facts<'PaymentEntryReturned'> | null;
  /** The QuickBooks payments voided after the return (null: not yet, or none to void). */
  voided: Facts<'PaymentEntryQbVoided'> | null;
  /** The inbound files whose correction of this entry is recorded. */
  correctedBy: ReadonlySet<string>;
}

export type EntryCommand =
  | { type: 'ReturnEntry'; facts: Facts<'PaymentEntryReturned'> }
  | { type: 'RecordCorrection'; facts: Facts<'PaymentEntryCorrectionReceived'> }
  /** The QuickBooks payments of the returned entry's bills were voided (the approvals module did it). */
  | {
      type: 'RecordQbVoids';
      bills: Facts<'PaymentEntryQbVoided'>['bills'];
      now: string;
    };

export const entryStreamId = (traceNumber: string) => `achentry-${traceNumber}`;

export const entryDecider = {
  initialState: (): EntryState => ({ returned: null, voided: null, correctedBy: new Set() }),
  evolve(state, event) {
    switch (event.type) {
      case 'PaymentEntryReturned':
        return { ...state, returned: event.data };
      case 'PaymentEntryQbVoided':
        return { ...state, voided: event.data };
      case 'PaymentEntryCorrectionReceived':
        return { ...state, correctedBy: new Set([...state.correctedBy, event.data.inboundFileId]) };
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'ReturnEntry':
        return state.returned ? [] : [{ type: 'PaymentEntryReturned', data: command.facts }];
      case 'RecordCorrection':
        return state.correctedBy.has(command.facts.inboundFileId)
          ? []
          : [{ type: 'PaymentEntryCorrectionReceived', data: command.facts }];
      case 'RecordQbVoids': {
        const r = state.returned;
        if (!r) throw new DomainError('CONFLICT', 'The bank has not returned this entry');
        if (state.voided || command.bills.length === 0) return [];
        // Only the bills the returned entry paid (when the return names them).
        const own = r.bills ? new Set(r.bills.map((b) => b.billId)) : null;
        const foreign = own && command.bills.find((b) => !own.has(b.billId));
        if (foreign)
          throw new DomainError('VALIDATION', `Bill ${foreign.billId} is not one of the returned entry's`);
        return [
          {
            type: 'PaymentEntryQbVoided',
            data: {
              traceNumber: r.traceNumber,
              approvalId: r.approvalId,
              companyId: r.companyId,
              vendorName: r.vendorName,
              bills: command.bills,
              at: command.now,
            },
          },
        ];
      }
    }
  },
  streamId: entryStreamId,
} satisfies Decider<EntryState, EntryCommand, EntryEvent>;

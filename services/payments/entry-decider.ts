// One entry of a Billflow file, by its trace number (stream `achentry-<trace>`): the bank returns it
// once (a second return of it, from the same file read again or another, changes nothing), and its
// notifications of change are recorded once per file that carries one.
import type { PaymentsEvent } from '../../schema/payments/events.js';
import type { Decider } from '../shared/decider.js';

type EntryEvent = Extract<PaymentsEvent, { type: 'PaymentEntryReturned' | 'PaymentEntryCorrectionReceived' }>;

export interface EntryState {
  returned: { returnCode: string; inboundFileId: string } | null;
  /** The inbound files whose correction of this entry is recorded. */
  correctedBy: ReadonlySet<string>;
}

export type EntryCommand =
  | { type: 'ReturnEntry'; facts: Extract<EntryEvent, { type: 'PaymentEntryReturned' }>['data'] }
  | {
      type: 'RecordCorrection';
      facts: Extract<EntryEvent, { type: 'PaymentEntryCorrectionReceived' }>['data'];
    };

export const entryStreamId = (traceNumber: string) => `achentry-${traceNumber}`;

export const entryDecider = {
  initialState: (): EntryState => ({ returned: null, correctedBy: new Set() }),
  evolve(state, event) {
    if (event.type === 'PaymentEntryReturned')
      return {
        ...state,
        returned: { returnCode: event.data.returnCode, inboundFileId: event.data.inboundFileId },
      };
    return { ...state, correctedBy: new Set([...state.correctedBy, event.data.inboundFileId]) };
  },
  decide(command, state) {
    if (command.type === 'ReturnEntry')
      return state.returned ? [] : [{ type: 'PaymentEntryReturned', data: command.facts }];
    return state.correctedBy.has(command.facts.inboundFileId)
      ? []
      : [{ type: 'PaymentEntryCorrectionReceived', data: command.facts }];
  },
  streamId: entryStreamId,
} satisfies Decider<EntryState, EntryCommand, EntryEvent>;

// An approval's file on its way to the bank over SFTP (stream `achdelivery-<approvalId>`): it waits
// for the company's next cut-off window; a newer version of the file replaces one still waiting; it
// is delivered once (the upload, or the file found already in the bank's inbox), then acknowledged
// or rejected once. A failed delivery can be scheduled again (a new version, or the same after a fix).
import type { PaymentsEvent } from '../../schema/payments/events.js';
import type { Decider } from '../shared/decider.js';

type DeliveryEvent = Extract<
  PaymentsEvent,
  {
    type:
      | 'AchDeliveryScheduled'
      | 'AchFileDelivered'
      | 'AchFileAcknowledged'
      | 'AchFileRejectedByBank'
      | 'AchDeliveryFailed';
  }
>;
type Data<T extends DeliveryEvent['type']> = Extract<DeliveryEvent, { type: T }>['data'];

export interface DeliveryState {
  pending: Data<'AchDeliveryScheduled'> | null;
  delivered: Data<'AchFileDelivered'> | null;
  answer: 'acknowledged' | 'rejected' | null;
  failed: string | null;
}

export type DeliveryCommand =
  | { type: 'ScheduleDelivery'; facts: Data<'AchDeliveryScheduled'> }
  | { type: 'RecordDelivered'; facts: Data<'AchFileDelivered'> }
  | { type: 'RecordBankAnswer'; accepted: boolean; facts: Data<'AchFileAcknowledged'> }
  | { type: 'RecordDeliveryFailed'; facts: Data<'AchDeliveryFailed'> };

export const deliveryStreamId = (approvalId: string) => `achdelivery-${approvalId}`;

export const deliveryDecider = {
  initialState: (): DeliveryState => ({ pending: null, delivered: null, answer: null, failed: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'AchDeliveryScheduled':
        return { ...state, pending: event.data, failed: null };
      case 'AchFileDelivered':
        return { ...state, pending: null, delivered: event.data };
      case 'AchFileAcknowledged':
        return { ...state, answer: 'acknowledged' };
      case 'AchFileRejectedByBank':
        return { ...state, answer: 'rejected' };
      case 'AchDeliveryFailed':
        return { ...state, pending: null, failed: event.data.reason };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'ScheduleDelivery': {
        // A file at the bank is never replaced by another: a second would pay twice.
        if (state.delivered) return [];
        const p = state.pending;
        if (p && p.version >= command.facts.version) return [];
        return [{ type: 'AchDeliveryScheduled', data: command.facts }];
      }
      case 'RecordDelivered':
        if (state.delivered || state.pending?.fileId !== command.facts.fileId) return [];
        return [{ type: 'AchFileDelivered', data: command.facts }];
      case 'RecordBankAnswer':
        if (!state.delivered || state.answer || state.delivered.fileId !== command.facts.fileId) return [];
        return [
          { type: command.accepted ? 'AchFileAcknowledged' : 'AchFileRejectedByBank', data: command.facts },
        ];
      case 'RecordDeliveryFailed':
        if (state.delivered || state.pending?.fileId !== command.facts.fileId) return [];
        return [{ type: 'AchDeliveryFailed', data: command.facts }];
    }
  },
  streamId: deliveryStreamId,
} satisfies Decider<DeliveryState, DeliveryCommand, DeliveryEvent>;

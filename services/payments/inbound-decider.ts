// One file the bank sent back (stream `achinbound-<sha256>`, named by its content): received once,
// then applied once, or refused once. Reading the same file again, by any path, finds its stream and
// applies nothing.
import type { ParkedEntry, PaymentsEvent } from '../../schema/payments/events.js';
import type { Decider } from '../shared/decider.js';

type InboundEvent = Extract<
  PaymentsEvent,
  { type: 'AchInboundFileReceived' | 'AchInboundFileRefused' | 'AchInboundFileApplied' }
>;

export interface InboundState {
  status: 'new' | 'received' | 'refused' | 'applied';
  fileName: string | null;
  reasons: readonly string[];
  applied: number;
  alreadyApplied: number;
  parked: readonly ParkedEntry[];
}

type Facts = Extract<InboundEvent, { type: 'AchInboundFileReceived' }>['data'];

export type InboundCommand =
  | { type: 'ReceiveInboundFile'; facts: Facts }
  | { type: 'RefuseInboundFile'; facts: Extract<InboundEvent, { type: 'AchInboundFileRefused' }>['data'] }
  | {
      type: 'FinishInboundFile';
      fileId: string;
      applied: number;
      alreadyApplied: number;
      parked: readonly ParkedEntry[];
      now: string;
    };

export const inboundStreamId = (fileId: string) => `achinbound-${fileId}`;

export const inboundDecider = {
  initialState: (): InboundState => ({
    status: 'new',
    fileName: null,
    reasons: [],
    applied: 0,
    alreadyApplied: 0,
    parked: [],
  }),
  evolve(state, event) {
    switch (event.type) {
      case 'AchInboundFileReceived':
        return { ...state, status: 'received', fileName: event.data.fileName };
      case 'AchInboundFileRefused':
        return { ...state, status: 'refused', fileName: event.data.fileName, reasons: event.data.reasons };
      case 'AchInboundFileApplied':
        return {
          ...state,
          status: 'applied',
          applied: event.data.applied,
          alreadyApplied: event.data.alreadyApplied,
          parked: event.data.parked,
        };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'ReceiveInboundFile':
        return state.status === 'new' ? [{ type: 'AchInboundFileReceived', data: command.facts }] : [];
      case 'RefuseInboundFile':
        return state.status === 'new' ? [{ type: 'AchInboundFileRefused', data: command.facts }] : [];
      case 'FinishInboundFile':
        if (state.status !== 'received') return [];
        return [
          {
            type: 'AchInboundFileApplied',
            data: {
              fileId: command.fileId,
              applied: command.applied,
              alreadyApplied: command.alreadyApplied,
              parked: [...command.parked],
              at: command.now,
            },
          },
        ];
    }
  },
  streamId: inboundStreamId,
} satisfies Decider<InboundState, InboundCommand, InboundEvent>;

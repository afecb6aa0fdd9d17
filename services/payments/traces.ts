// Trace numbers at one ODFI (stream `achtraces-<odfi8>`): each file takes the next range of 7-digit
// sequences, appended at the stream's expected version, so two files written at once never share a
// trace (the loser of the append decides again and takes the range after). Nacha forbids reusing a
// trace; Billflow matches the bank's returns on it. A range that would pass 9,999,999 starts again
// at 1: by then the first traces are years past any return window.
import type { PaymentsEvent } from '../../schema/payments/events.js';
import type { AchTraceAccess } from '../app/ach-traces.js';
import type { CommandContext } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import type { Decider } from '../shared/decider.js';

export const MAX_TRACE_SEQUENCE = 9_999_999;

type TracesEvent = Extract<PaymentsEvent, { type: 'AchTracesReserved' }>;

export interface TracesState {
  /** The next free sequence. */
  next: number;
  /** file id → the first sequence it took */
  byFile: ReadonlyMap<string, number>;
}

export interface ReserveTraces {
  type: 'ReserveTraces';
  odfi: string;
  fileId: string;
  count: number;
  now: string;
}

export const tracesStreamId = (odfi: string) => `achtraces-${odfi}`;

export const tracesDecider = {
  initialState: (): TracesState => ({ next: 1, byFile: new Map() }),
  evolve(state, event) {
    const byFile = new Map(state.byFile);
    byFile.set(event.data.fileId, event.data.first);
    return { next: event.data.first + event.data.count, byFile };
  },
  decide(command, state) {
    if (state.byFile.has(command.fileId)) return [];
    if (!Number.isInteger(command.count) || command.count < 1 || command.count > MAX_TRACE_SEQUENCE)
      throw new Error(`a file takes 1 to ${MAX_TRACE_SEQUENCE} traces, not ${command.count}`);
    const first = state.next + command.count - 1 > MAX_TRACE_SEQUENCE ? 1 : state.next;
    return [
      {
        type: 'AchTracesReserved',
        data: { odfi: command.odfi, fileId: command.fileId, first, count: command.count, at: command.now },
      },
    ];
  },
  streamId: tracesStreamId,
} satisfies Decider<TracesState, ReserveTraces, TracesEvent>;

/** The port's implementation (services/app/ach-traces.ts). */
export function paymentsAchTraces(appOf: () => AppServices): AchTraceAccess {
  return {
    async reserve(odfi: string, fileId: string, count: number, ctx: CommandContext) {
      if (!/^\d{8}$/.test(odfi)) throw new Error('an ODFI is the 8 first digits of its routing number');
      const r = await appOf().commands.handle(
        tracesDecider,
        tracesStreamId(odfi),
        { type: 'ReserveTraces', odfi, fileId, count, now: new Date().toISOString() },
        // Its own command id per file: a re-run finds the earlier append and decides nothing twice.
        { ...ctx, commandId: `traces:${fileId}` },
      );
      const first = r.state.byFile.get(fileId);
      if (first === undefined) throw new Error(`no trace range recorded for ${fileId}`);
      return first;
    },
  };
}

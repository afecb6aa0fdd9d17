// The kernel's achEntries port (services/app/ach-entries.ts): the entries' streams read as they are
// now (one round trip for many), and the voids of a returned entry's QuickBooks payments recorded on
// its stream through its decider (once, whoever asks again).

import { paymentsEvents } from '../../schema/payments/events.js';
import type { AchEntryAccess, EntryAnswer } from '../app/ach-entries.js';
import type { AppServices } from '../app/context.js';
import { eventDecoder } from '../shared/decider.js';
import { entryDecider, entryStreamId } from './entry-decider.js';

const decode = eventDecoder(paymentsEvents);

export function paymentsAchEntries(appOf: () => AppServices): AchEntryAccess {
  return {
    async answers(traceNumbers) {
      const app = appOf();
      const ids = [...new Set(traceNumbers)].map(entryStreamId);
      const streams = app.store.readStreams
        ? await app.store.readStreams(ids)
        : new Map(await Promise.all(ids.map(async (id) => [id, await app.store.readStream(id)] as const)));
      const out = new Map<string, EntryAnswer>();
      for (const trace of new Set(traceNumbers)) {
        let state = entryDecider.initialState();
        // The corrected numbers stay sealed: what the approvals read is the return and the voids.
        for (const stored of streams.get(entryStreamId(trace))?.events ?? [])
          state = entryDecider.evolve(state, decode(stored, { sealed: 'absent' }) as never);
        out.set(trace, { returned: state.returned, voided: state.voided?.bills ?? null });
      }
      return out;
    },
    async recordQbVoids(traceNumber, bills, ctx) {
      const app = appOf();
      await app.commands.handle(
        entryDecider,
        entryStreamId(traceNumber),
        { type: 'RecordQbVoids', bills, now: new Date().toISOString() },
        ctx,
      );
    },
  };
}

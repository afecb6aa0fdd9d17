// The file id modifier (reference/nacha.md: one character telling apart the files a company sends its
// bank on one day): stream `nachafileday-<companyId>-<YYYYMMDD>` holds the ones taken, appended at
// its expected version, so two files generated at once never share one (the loser of the append
// decides again and takes the next). A–Z, then 0–9: 36 files a company a day. Asked again for the
// same file (a job run again), the modifier it already took is answered.
import type { NachaFileDayEvent } from '../../../schema/approvals/payment-events.js';
import type { CommandContext } from '../../app/command-handler.js';
import type { AppServices } from '../../app/context.js';
import type { Decider } from '../../shared/decider.js';
import { DomainError } from '../../shared/domain-errors.js';

export const FILE_ID_MODIFIERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export interface FileDayState {
  /** file id → its modifier */
  taken: ReadonlyMap<string, string>;
}

export type FileDayCommand = {
  type: 'TakeFileIdModifier';
  companyId: number;
  /** 'YYYYMMDD', the file's creation day in New York (achFileDay). */
  day: string;
  fileId: string;
  now: string;
};

export const fileDayStreamId = (companyId: number, day: string) => `nachafileday-${companyId}-${day}`;

export const fileDayDecider = {
  initialState: (): FileDayState => ({ taken: new Map() }),
  evolve(state, event) {
    const taken = new Map(state.taken);
    taken.set(event.data.fileId, event.data.modifier);
    return { taken };
  },
  decide(command, state) {
    if (state.taken.has(command.fileId)) return [];
    const used = new Set(state.taken.values());
    const modifier = [...FILE_ID_MODIFIERS].find((m) => !used.has(m));
    if (!modifier)
      throw new DomainError(
        'CONFLICT',
        `The company has sent ${FILE_ID_MODIFIERS.length} files today, the most a bank takes in one day: try again on the next day`,
      );
    return [
      {
        type: 'NachaFileIdModifierTaken',
        data: {
          companyId: command.companyId,
          day: command.day,
          modifier,
          fileId: command.fileId,
          at: command.now,
        },
      },
    ];
  },
  streamId: (companyId: number, day: string) => fileDayStreamId(companyId, day),
} satisfies Decider<FileDayState, FileDayCommand, NachaFileDayEvent>;

/** The file's modifier on its day: taken once (a version conflict decides again on the fresh stream). */
export async function takeFileIdModifier(
  app: AppServices,
  companyId: number,
  day: string,
  fileId: string,
  ctx: CommandContext,
): Promise<string> {
  const r = await app.commands.handle(
    fileDayDecider,
    fileDayStreamId(companyId, day),
    { type: 'TakeFileIdModifier', companyId, day, fileId, now: new Date().toISOString() },
    // Its own command id per file: a re-run finds the earlier append and decides nothing twice.
    { ...ctx, commandId: `modifier:${fileId}` },
  );
  const modifier = r.state.taken.get(fileId);
  if (!modifier) throw new Error(`no file id modifier recorded for ${fileId}`);
  return modifier;
}

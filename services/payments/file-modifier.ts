// The file id modifier (reference/nacha.md: one character telling apart the files a company sends its
// bank on one day): stream `nachafileday-<companyId>-<YYYYMMDD>` holds the ones taken, appended at
// its expected version, so two files generated at once never share one (the loser of the append
// decides again and takes the next). A–Z, then 0–9: 36 files a company a day. Asked again for the
// same file (a job run again), the modifier it already took is answered.
//
// Penny tests share those 36 with the payment files, so they are limited here, on the same stream and
// the same append, which holds however many are asked at once: a handful a company a day, two a
// vendor a day, each from the end of the range (9, 8, …) and only within the last few, so payment
// files always keep at least the first 30 (A–Z, 0–3). Payment files take the first free one, and may
// take one of the last few too while no penny test has. The day is the New York day (achFileDay), so
// the limits start again at midnight New York time.
import type { NachaFileDayEvent } from '../../schema/payments/events.js';
import {
  PENNY_LIMIT,
  PENNY_TESTS_PER_COMPANY_PER_DAY,
  PENNY_TESTS_PER_VENDOR_PER_DAY,
} from '../app/ach-files.js';
import type { CommandContext } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import { FILE_ID_MODIFIERS } from '../nacha/records.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';

/** The modifiers a penny test may take: the last ones of the range, the last first. */
export const PENNY_TEST_MODIFIERS = FILE_ID_MODIFIERS.slice(-PENNY_TESTS_PER_COMPANY_PER_DAY);
/** The modifiers only payment files take (A–Z, 0–3). */
export const PAYMENT_RESERVE = FILE_ID_MODIFIERS.length - PENNY_TEST_MODIFIERS.length;

export type FileKind = 'payment' | 'penny-test';

export interface FileDayState {
  /** file id → its modifier */
  taken: ReadonlyMap<string, string>;
  /** Penny tests made this day. */
  pennyTests: number;
  /** QuickBooks vendor id → penny tests that credited it this day. */
  pennyTestsByVendor: ReadonlyMap<string, number>;
}

export interface PennyTestVendor {
  qbVendorId: string;
  /** For a refusal's text only; never recorded. */
  name: string;
}

export type FileDayCommand = {
  type: 'TakeFileIdModifier';
  companyId: number;
  /** 'YYYYMMDD', the file's creation day in New York (achFileDay). */
  day: string;
  fileId: string;
  now: string;
  /** A payment file when absent. */
  kind?: FileKind;
  /** A penny test's vendors. */
  vendors?: readonly PennyTestVendor[];
};

/** When the day's penny-test limits start again: midnight in New York after `day` ('YYYYMMDD'). */
export function pennyLimitsReset(day: string): string {
  const next = new Date(
    Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6, 8)) + 1),
  );
  return `The limit resets at midnight New York time (00:00 on ${next.toISOString().slice(0, 10)}).`;
}

/** The modifier a penny test takes, or the refusal that says which limit it is past. */
function pennyTestModifier(command: FileDayCommand, state: FileDayState, used: Set<string>): string {
  const resets = pennyLimitsReset(command.day);
  if (state.pennyTests >= PENNY_TESTS_PER_COMPANY_PER_DAY)
    throw new DomainError(
      'CONFLICT',
      `${PENNY_LIMIT}: at most ${PENNY_TESTS_PER_COMPANY_PER_DAY} penny tests per company a day (its payment files keep the day's other file ids), and this company has made ${state.pennyTests} today. ${resets}`,
    );
  const full = (command.vendors ?? []).filter(
    (v) => (state.pennyTestsByVendor.get(v.qbVendorId) ?? 0) >= PENNY_TESTS_PER_VENDOR_PER_DAY,
  );
  if (full.length > 0)
    throw new DomainError(
      'CONFLICT',
      `${PENNY_LIMIT}: at most ${PENNY_TESTS_PER_VENDOR_PER_DAY} penny tests per vendor a day, and ${full.map((v) => v.name).join(', ')} ${full.length === 1 ? 'has' : 'have'} had ${PENNY_TESTS_PER_VENDOR_PER_DAY} today. ${resets}`,
    );
  const modifier = [...PENNY_TEST_MODIFIERS].reverse().find((m) => !used.has(m));
  if (!modifier)
    throw new DomainError(
      'CONFLICT',
      `${PENNY_LIMIT}: the company's payment files have used the file ids penny tests may take today (a bank takes ${FILE_ID_MODIFIERS.length} files a company a day, and payment files come first). ${resets}`,
    );
  return modifier;
}

/** Every file id modifier of the day is taken: a payment file waits for the next banking day. */
export class FileLimitReached extends DomainError {}

export const fileDayStreamId = (companyId: number, day: string) => `nachafileday-${companyId}-${day}`;

export const fileDayDecider = {
  initialState: (): FileDayState => ({ taken: new Map(), pennyTests: 0, pennyTestsByVendor: new Map() }),
  evolve(state, event) {
    const taken = new Map(state.taken);
    taken.set(event.data.fileId, event.data.modifier);
    if (event.data.kind !== 'penny-test') return { ...state, taken };
    const pennyTestsByVendor = new Map(state.pennyTestsByVendor);
    for (const id of new Set(event.data.qbVendorIds ?? []))
      pennyTestsByVendor.set(id, (pennyTestsByVendor.get(id) ?? 0) + 1);
    return { taken, pennyTests: state.pennyTests + 1, pennyTestsByVendor };
  },
  decide(command, state) {
    if (state.taken.has(command.fileId)) return [];
    const used = new Set(state.taken.values());
    const kind = command.kind ?? 'payment';
    let modifier: string | undefined;
    if (kind === 'penny-test') modifier = pennyTestModifier(command, state, used);
    else modifier = [...FILE_ID_MODIFIERS].find((m) => !used.has(m));
    if (!modifier)
      throw new (kind === 'payment' ? FileLimitReached : DomainError)(
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
          kind,
          ...(kind === 'penny-test'
            ? { qbVendorIds: [...new Set((command.vendors ?? []).map((v) => v.qbVendorId))] }
            : {}),
        },
      },
    ];
  },
  streamId: (companyId: number, day: string) => fileDayStreamId(companyId, day),
} satisfies Decider<FileDayState, FileDayCommand, NachaFileDayEvent>;

/**
 * The file's modifier on its day: taken once (a version conflict decides again on the fresh stream).
 * A payment file unless `pennyTest` names the vendors a penny test credits (its limits then apply).
 */
export async function takeFileIdModifier(
  app: AppServices,
  companyId: number,
  day: string,
  fileId: string,
  ctx: CommandContext,
  pennyTest?: { vendors: readonly PennyTestVendor[] },
): Promise<string> {
  const r = await app.commands.handle(
    fileDayDecider,
    fileDayStreamId(companyId, day),
    {
      type: 'TakeFileIdModifier',
      companyId,
      day,
      fileId,
      now: new Date().toISOString(),
      ...(pennyTest ? { kind: 'penny-test' as const, vendors: pennyTest.vendors } : {}),
    },
    // Its own command id per file: a re-run finds the earlier append and decides nothing twice.
    { ...ctx, commandId: `modifier:${fileId}` },
  );
  const modifier = r.state.taken.get(fileId);
  if (!modifier) throw new Error(`no file id modifier recorded for ${fileId}`);
  return modifier;
}

export { FILE_ID_MODIFIERS, PENNY_LIMIT, PENNY_TESTS_PER_COMPANY_PER_DAY, PENNY_TESTS_PER_VENDOR_PER_DAY };

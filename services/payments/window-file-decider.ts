// The files a company sends its bank at one cut-off window (stream
// `achwindow-<companyId>-<via>-<window>`; decision 0040): every approval whose file is made for that window is a batch of the window's open
// file, so a company sends a file a window, not a file an approval, and Nacha's 36 file id modifiers
// a day never stop a payment. A newer version of an approval's file (Regenerate) takes its old
// batch's place while the file is open. The file is sealed when a person downloads it or its upload
// begins; an approval made for the window after that opens the window's next file.
import type { PaymentsEvent } from '../../schema/payments/events.js';
import type { Decider } from '../shared/decider.js';

type WindowEvent = Extract<
  PaymentsEvent,
  { type: 'AchWindowFileOpened' | 'AchWindowFileBatchJoined' | 'AchWindowFileSealed' }
>;

export interface WindowBatch {
  batch: number;
  approvalId: string;
  fileId: string;
  version: number;
}

export interface WindowFile {
  file: number;
  createdAt: string;
  /** approval id → its batch (the latest version of its file). */
  batches: ReadonlyMap<string, WindowBatch>;
  /** The batches it was sealed with; null while open. */
  sealed: readonly WindowBatch[] | null;
}

export interface WindowState {
  files: readonly WindowFile[];
}

export type Via = 'manual' | 'sftp';

export type WindowCommand =
  | {
      type: 'JoinWindowFile';
      companyId: number;
      /** By hand or over SFTP: a company that changes how it sends starts new files. */
      via: Via;
      windowAt: string;
      approvalId: string;
      fileId: string;
      version: number;
      now: string;
    }
  | {
      type: 'SealWindowFile';
      companyId: number;
      via: Via;
      windowAt: string;
      file: number;
      /** The batches that go: the open file's, less any whose approval no longer waits. */
      batches: readonly WindowBatch[];
      reason: 'download' | 'upload';
      now: string;
    };

/** The window in a stream name: its instant to the minute, UTC ('20261207T1515'). */
export const windowKey = (windowAt: string) => windowAt.slice(0, 16).replace(/[-:]/g, '');

export const windowStreamId = (companyId: number, via: Via, windowAt: string) =>
  `achwindow-${companyId}-${via}-${windowKey(windowAt)}`;

/** The shared file's id: its modifier is taken once for it on the company's day. */
export const windowFileId = (companyId: number, via: Via, windowAt: string, file: number) =>
  `window:${companyId}:${via}:${windowKey(windowAt)}:${file}`;

/** Where an approval's file sits: the window's file and its batch there. */
export function batchOf(state: WindowState, approvalId: string, fileId: string) {
  for (const f of state.files) {
    const b = f.sealed ? f.sealed.find((x) => x.approvalId === approvalId) : f.batches.get(approvalId);
    if (b && b.fileId === fileId) return { file: f, batch: b };
  }
  return null;
}

export const windowFileDecider = {
  initialState: (): WindowState => ({ files: [] }),
  evolve(state, event) {
    switch (event.type) {
      case 'AchWindowFileOpened':
        return {
          files: [
            ...state.files,
            { file: event.data.file, createdAt: event.data.createdAt, batches: new Map(), sealed: null },
          ],
        };
      case 'AchWindowFileBatchJoined':
        return {
          files: state.files.map((f) => {
            if (f.file !== event.data.file) return f;
            const batches = new Map(f.batches);
            const { batch, approvalId, fileId, version } = event.data;
            batches.set(approvalId, { batch, approvalId, fileId, version });
            return { ...f, batches };
          }),
        };
      case 'AchWindowFileSealed':
        return {
          files: state.files.map((f) =>
            f.file === event.data.file ? { ...f, sealed: event.data.batches } : f,
          ),
        };
    }
  },
  decide(command, state) {
    const { companyId, via, windowAt } = command;
    if (command.type === 'SealWindowFile') {
      const f = state.files.find((x) => x.file === command.file);
      if (!f || f.sealed) return [];
      return [
        {
          type: 'AchWindowFileSealed',
          data: {
            companyId,
            via,
            windowAt,
            file: f.file,
            batches: [...command.batches].sort((a, b) => a.batch - b.batch),
            reason: command.reason,
            at: command.now,
          },
        },
      ];
    }
    // Asked again for a file already placed (a job run again): nothing new.
    if (batchOf(state, command.approvalId, command.fileId)) return [];
    const { approvalId, fileId, version, now } = command;
    const open = state.files.at(-1);
    if (open && !open.sealed) {
      const mine = open.batches.get(approvalId);
      const batch = mine?.batch ?? Math.max(0, ...[...open.batches.values()].map((b) => b.batch)) + 1;
      return [
        {
          type: 'AchWindowFileBatchJoined',
          data: { companyId, via, windowAt, file: open.file, batch, approvalId, fileId, version, at: now },
        },
      ];
    }
    const file = (open?.file ?? 0) + 1;
    return [
      { type: 'AchWindowFileOpened', data: { companyId, via, windowAt, file, createdAt: now } },
      {
        type: 'AchWindowFileBatchJoined',
        data: { companyId, via, windowAt, file, batch: 1, approvalId, fileId, version, at: now },
      },
    ];
  },
  streamId: windowStreamId,
} satisfies Decider<WindowState, WindowCommand, WindowEvent>;

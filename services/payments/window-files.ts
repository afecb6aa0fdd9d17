// The cut-off windows' shared files (decision 0040; the port services/app/ach-windows.ts): an
// approval's file is placed as a batch of its company's file for the window it is made for, and the
// shared file's text is those batches under one header, sealed the first time it is downloaded or
// uploaded. A batch whose approval no longer waits for the bank with that file (a newer file asked
// for, the upload confirmed some other way) is left out at the seal.
import { approvalEvents } from '../../schema/approvals/events.js';
import type { AchWindowAccess } from '../app/ach-windows.js';
import type { AppServices } from '../app/context.js';
import type { StoredEvent } from '../eventstore/port.js';
import { AchCombineError, combineAchFiles } from '../nacha/combine.js';
import { validateAchFile } from '../nacha/validator.js';
import { eventDecoder } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';
import { readNachaFiles } from './nacha-files.js';
import {
  batchOf,
  type WindowBatch,
  windowFileDecider,
  windowFileId,
  windowStreamId,
} from './window-file-decider.js';
import { DEFAULT_WINDOWS, deliveryTime } from './windows.js';

const decodeApproval = eventDecoder(approvalEvents);

/**
 * Whether the approval still waits for the bank with this version of its file: its latest file
 * asked for, made, not deleted, not at the bank yet. Read from the approval's own events (its stream
 * `approval-<id>`), so a file Regenerate replaced, or one a person confirmed by link, is never sent.
 */
export async function approvalWaitsFor(app: AppServices, approvalId: string, version: number) {
  const { events } = await app.store.readStream(`approval-${approvalId}`);
  return waitsFor(events, version);
}

/** The batches whose approvals still wait for the bank with their file (their streams read at once). */
async function batchesWaiting(app: AppServices, batches: readonly WindowBatch[]) {
  const ids = batches.map((b) => `approval-${b.approvalId}`);
  const streams = app.store.readStreams
    ? await app.store.readStreams(ids)
    : new Map(await Promise.all(ids.map(async (id) => [id, await app.store.readStream(id)] as const)));
  return batches.filter((b) => waitsFor(streams.get(`approval-${b.approvalId}`)?.events ?? [], b.version));
}

function waitsFor(events: readonly StoredEvent[], version: number) {
  let requested = 0;
  let generated = false;
  let done = false;
  for (const stored of events) {
    const e = decodeApproval(stored, { sealed: 'absent' });
    if (e.type === 'NachaGenerationRequested') {
      requested = e.data.version;
      generated = false;
    } else if (e.type === 'NachaFileGenerated' && e.data.version === requested) generated = true;
    else if (e.type === 'BankUploadConfirmed' || e.type === 'ApprovalDeleted') done = true;
  }
  return !done && generated && requested === version;
}

/** How the company sends and its cut-off windows: its SFTP connection's, the Fed's defaults by hand. */
async function windowsOf(app: AppServices, companyId: number) {
  const c = await app.bankConnections.connection(companyId).catch((err) => {
    if (err instanceof DomainError && err.code === 'NOT_FOUND') return { mode: 'manual' as const };
    throw err;
  });
  return c.mode === 'sftp'
    ? { via: 'sftp' as const, windows: c.windows }
    : { via: 'manual' as const, windows: DEFAULT_WINDOWS };
}

/** The shared file's text from its batches' own files, validated: never given when it breaks a rule. */
async function sharedText(app: AppServices, batches: readonly WindowBatch[]) {
  const parts = [];
  // Nacha's first batch is 1: batch 1's approval left the file (a newer file asked for) before the
  // seal, so the batches are numbered again in order (the approvals' cards keep their first numbers).
  const renumber = batches[0]?.batch !== 1;
  // Every batch's file in one read (they are this module's own files).
  const files = await readNachaFiles(
    app,
    batches.map((b) => ({ ownerId: b.approvalId, fileId: b.fileId })),
  );
  for (const [i, b] of batches.entries()) {
    const stored = files.get(b.fileId);
    if (!stored || 'gone' in stored)
      throw new DomainError('NOT_FOUND', `The file of batch ${b.batch} can no longer be read`);
    parts.push({ text: stored.text, batch: renumber ? i + 1 : b.batch });
  }
  let text: string;
  try {
    text = combineAchFiles(parts);
  } catch (err) {
    if (!(err instanceof AchCombineError)) throw err;
    // Batches written with different origins or banks: the company's NACHA settings changed meanwhile.
    throw new DomainError(
      'CONFLICT',
      `The cut-off window's shared file cannot be made (${err.message}): the company's NACHA settings changed after some of its batches were written. Regenerate the approvals' files.`,
    );
  }
  const issues = validateAchFile(text);
  if (issues.length > 0)
    throw new Error(
      `the window's shared file breaks a rule: ${issues
        .slice(0, 3)
        .map((i) => `line ${i.line} ${i.record}.${i.field}: ${i.message}`)
        .join('; ')}`,
    );
  return text;
}

/** The port's implementation. */
export function paymentsAchWindows(appOf: () => AppServices): AchWindowAccess {
  return {
    async place(input, ctx) {
      const app = appOf();
      const { via, windows } = await windowsOf(app, input.companyId);
      const windowAt = deliveryTime(input.requestedAt, windows, input.sameDay).toISOString();
      const r = await app.commands.handle(
        windowFileDecider,
        windowStreamId(input.companyId, via, windowAt),
        {
          type: 'JoinWindowFile',
          companyId: input.companyId,
          via,
          windowAt,
          approvalId: input.approvalId,
          fileId: input.fileId,
          version: input.version,
          now: new Date().toISOString(),
        },
        { ...ctx, commandId: `window:${input.fileId}` },
      );
      const placed = batchOf(r.state, input.approvalId, input.fileId);
      if (!placed) throw new Error(`file ${input.fileId} was not placed in its window`);
      return {
        via,
        windowAt,
        file: placed.file.file,
        windowFileId: windowFileId(input.companyId, via, windowAt, placed.file.file),
        batch: placed.batch.batch,
        createdAt: new Date(placed.file.createdAt),
      };
    },
    async sharedFile(input, reason, ctx) {
      const app = appOf();
      const streamId = windowStreamId(input.companyId, input.via, input.windowAt);
      let { state } = await app.commands.load(windowFileDecider, streamId);
      const f = state.files.find((x) => x.file === input.file);
      if (!f) return null;
      if (!f.sealed) {
        const waiting = await batchesWaiting(app, [...f.batches.values()]);
        // The one asking is in it even when it no longer waits (an old version downloaded for the record).
        const mine = f.batches.get(input.approvalId);
        if (mine?.fileId === input.fileId && !waiting.includes(mine)) waiting.push(mine);
        ({ state } = await app.commands.handle(
          windowFileDecider,
          streamId,
          {
            type: 'SealWindowFile',
            companyId: input.companyId,
            via: input.via,
            windowAt: input.windowAt,
            file: input.file,
            batches: waiting,
            reason,
            now: new Date().toISOString(),
          },
          {
            ...ctx,
            commandId: `seal:${windowFileId(input.companyId, input.via, input.windowAt, input.file)}`,
          },
        ));
      }
      const sealed = state.files.find((x) => x.file === input.file)?.sealed ?? [];
      if (!sealed.some((b) => b.approvalId === input.approvalId && b.fileId === input.fileId)) return null;
      return {
        text: await sharedText(app, sealed),
        batches: sealed.map(({ batch, approvalId, fileId, version }) => ({
          batch,
          approvalId,
          fileId,
          version,
        })),
      };
    },
  };
}

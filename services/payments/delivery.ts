// Delivering an approval's file to its company's bank over SFTP, and reading what the bank answers.
// - schedule: a file made for a company that sends over SFTP waits for the next cut-off window.
// - deliver: at the window, the file goes into the bank's inbox once. An upload that may have landed
//   (a connection lost after the write) is looked for in the inbox by name and size before any new
//   upload, so a file never goes twice; it is written under a temporary name and renamed, so the
//   bank never reads half a file. A file whose effective date is no longer after today is not sent:
//   it would settle the same day by accident.
// - poll: the bank's outbox is read: the acknowledgement or rejection of each delivered file, and the
//   return and notification-of-change files, applied once (services/payments/inbound.ts). What was
//   read and recorded is removed from the outbox, as banks expect.
import { createHash } from 'node:crypto';
import type { SFTPWrapper } from 'ssh2';
import { BankSftpError } from '../app/bank-connections.js';
import type { CommandContext } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import { DomainError } from '../shared/domain-errors.js';
import { tryRedisLock } from '../shared/redis-lock.js';
import { type DeliveryState, deliveryDecider, deliveryStreamId } from './delivery-decider.js';
import { applyInboundFile } from './inbound.js';
import { approvalWaitsFor } from './window-files.js';
import { deliveryDateProblem, deliveryTime } from './windows.js';

export interface FileToDeliver {
  approvalId: string;
  companyId: number;
  fileId: string;
  version: number;
  fileName: string;
  effectiveDate: string;
  sameDay?: boolean;
  /** The window's shared file that carries it (decision 0040): it goes at that window. */
  window?: { at: string; file: number; via: 'manual' | 'sftp' };
}

/** Schedules the file at the company's next window; null when the company sends by hand. */
export async function scheduleDelivery(
  app: AppServices,
  file: FileToDeliver,
  ctx: CommandContext,
  now = new Date(),
) {
  const connection = await app.bankConnections.connection(file.companyId).catch((err) => {
    if (err instanceof DomainError && err.code === 'NOT_FOUND') return { mode: 'manual' as const };
    throw err;
  });
  if (connection.mode !== 'sftp') return null;
  // A file made while the company sent by hand stays with the by-hand window's file (decision 0040).
  if (file.window && file.window.via !== 'sftp') return null;
  const windowAt = file.window
    ? new Date(file.window.at)
    : deliveryTime(now, connection.windows, file.sameDay ?? false);
  const r = await app.commands.handle(
    deliveryDecider,
    deliveryStreamId(file.approvalId),
    {
      type: 'ScheduleDelivery',
      facts: { ...file, windowAt: windowAt.toISOString(), at: now.toISOString() },
    },
    ctx,
  );
  return r.state.pending;
}

const list = (sftp: SFTPWrapper, dir: string) =>
  new Promise<Array<{ filename: string; attrs: { size: number } }>>((resolve, reject) =>
    sftp.readdir(dir, (err, items) => (err ? reject(err) : resolve(items))),
  );
const write = (sftp: SFTPWrapper, file: string, text: string) =>
  new Promise<void>((resolve, reject) =>
    sftp.writeFile(file, text, (err: Error | null | undefined) => (err ? reject(err) : resolve())),
  );
const rename = (sftp: SFTPWrapper, from: string, to: string) =>
  new Promise<void>((resolve, reject) => sftp.rename(from, to, (err) => (err ? reject(err) : resolve())));
const read = (sftp: SFTPWrapper, file: string) =>
  new Promise<string>((resolve, reject) =>
    sftp.readFile(file, (err, data) => (err ? reject(err) : resolve(data.toString('latin1')))),
  );
const remove = (sftp: SFTPWrapper, file: string) =>
  new Promise<void>((resolve, reject) => sftp.unlink(file, (err) => (err ? reject(err) : resolve())));
const join = (dir: string, name: string) => `${dir.replace(/\/+$/, '')}/${name}`;

export type DeliveryOutcome = 'stale' | 'delivered' | 'found-there' | 'refused';

/**
 * Delivers the file if it is still the one waiting. A refusal the bank or the rules make (a changed
 * host key, an effective date gone by, the file gone) is recorded at once as the delivery's failure;
 * anything else throws for the job to try again later.
 */
export async function deliverFile(
  app: AppServices,
  approvalId: string,
  fileId: string,
  ctx: CommandContext,
  now = new Date(),
): Promise<DeliveryOutcome> {
  const streamId = deliveryStreamId(approvalId);
  const { state } = await app.commands.load(deliveryDecider, streamId);
  const p = state.pending;
  if (!p || p.fileId !== fileId || state.delivered) return 'stale';
  if (!(await approvalWaitsFor(app, approvalId, p.version))) return 'stale';
  const fail = async (reason: string) => {
    await app.commands.handle(
      deliveryDecider,
      streamId,
      {
        type: 'RecordDeliveryFailed',
        facts: { approvalId, companyId: p.companyId, fileId, reason, at: now.toISOString() },
      },
      ctx,
    );
    return 'refused' as const;
  };
  const dateProblem = deliveryDateProblem(p.effectiveDate, p.sameDay ?? false, now);
  if (dateProblem) return fail(dateProblem);
  const connection = await app.bankConnections.connection(p.companyId);
  if (connection.mode !== 'sftp')
    return fail('The company now sends its files by hand: download the file instead.');
  const shared = await sharedFileOf(app, p, ctx);
  if (shared === 'gone') return fail('The stored file is no longer there to send.');
  const { text, batches } = shared;
  const size = Buffer.byteLength(text, 'latin1');
  const sha256 = createHash('sha256').update(text, 'latin1').digest('hex');
  let foundThere: boolean;
  try {
    // One upload of a shared file at a time: its approvals' jobs run at the same window.
    foundThere = await withUploadLock(app, p.companyId, p.fileName, () =>
      app.bankConnections.withSftp(p.companyId, async (sftp) => {
        const there = (await list(sftp, connection.inbox)).find((f) => f.filename === p.fileName);
        if (there && there.attrs.size === size) return true;
        const part = join(connection.inbox, `${p.fileName}.part`);
        await write(sftp, part, text);
        await rename(sftp, part, join(connection.inbox, p.fileName));
        return false;
      }),
    );
  } catch (err) {
    if (err instanceof BankSftpError && err.kind === 'host-key') return fail(err.message);
    throw err;
  }
  // Every approval the file carries is at the bank now: one whose delivery is not scheduled yet finds
  // the file there when its own job runs.
  const at = new Date().toISOString();
  for (const b of batches)
    await app.commands.handle(
      deliveryDecider,
      deliveryStreamId(b.approvalId),
      {
        type: 'RecordDelivered',
        facts: {
          approvalId: b.approvalId,
          companyId: p.companyId,
          fileId: b.fileId,
          version: b.version,
          fileName: p.fileName,
          size,
          sha256,
          foundThere: b.approvalId === approvalId ? foundThere : false,
          at,
        },
      },
      b.approvalId === approvalId ? ctx : { ...ctx, commandId: `delivered:${b.fileId}` },
    );
  // Found at the bank late (its delivery was scheduled after the shared file went): the bank's answer
  // to that file may already be on record for the file's other approvals, and its outbox read.
  if (foundThere) await answerAsForTheFile(app, p.companyId, p.fileName, approvalId, fileId, ctx);
  return foundThere ? 'found-there' : 'delivered';
}

/**
 * The text that goes: the window's shared file carrying the approval's file (decision 0040), or the
 * file alone for one made before files were shared; 'gone' when it cannot be read.
 */
async function sharedFileOf(
  app: AppServices,
  p: NonNullable<DeliveryState['pending']>,
  ctx: CommandContext,
): Promise<
  { text: string; batches: ReadonlyArray<{ approvalId: string; fileId: string; version: number }> } | 'gone'
> {
  const stored = await app.achFiles.read(p.approvalId, p.fileId);
  if (stored === null || stored === 'gone') return 'gone';
  if (p.window) {
    const shared = await app.achWindows.sharedFile(
      {
        companyId: p.companyId,
        via: p.window.via,
        windowAt: p.window.at,
        file: p.window.file,
        approvalId: p.approvalId,
        fileId: p.fileId,
      },
      'upload',
      ctx,
    );
    if (shared) return shared;
  }
  return { text: stored.text, batches: [{ approvalId: p.approvalId, fileId: p.fileId, version: p.version }] };
}

/** How long one upload may hold its file's lock (the SFTP work's own limit is 60 s). */
const UPLOAD_LOCK_MS = 90_000;

/** Runs `fn` holding the file's upload lock (services/shared/redis-lock.ts); another holder makes the job try again later. */
async function withUploadLock<T>(
  app: AppServices,
  companyId: number,
  fileName: string,
  fn: () => Promise<T>,
) {
  const key = `${app.config.REDIS_PREFIX}:bank-upload-lock:${companyId}:${fileName}`;
  const release = await tryRedisLock(app.redis, key, UPLOAD_LOCK_MS);
  if (!release) throw new Error(`${fileName} is being uploaded by another job: tried again shortly`);
  try {
    return await fn();
  } finally {
    await release();
  }
}

/**
 * The bank's words with every number of 6 or more digits standing alone masked to its last four: an
 * answer may quote an account number, and none is ever kept in plain (a file name's date, inside its
 * name, stays as it is).
 */
export const maskDigitRuns = (text: string) =>
  text.replace(/\b\d{6,}\b/g, (run) => `${'•'.repeat(run.length - 4)}${run.slice(-4)}`);

/** The bank's answer to a file, recorded for one more approval it carries, when one is on record. */
async function answerAsForTheFile(
  app: AppServices,
  companyId: number,
  fileName: string,
  approvalId: string,
  fileId: string,
  ctx: CommandContext,
) {
  const answered = await app.db
    .selectFrom('ach_deliveries')
    .select(['bank_answer', 'bank_text'])
    .where('company_id', '=', companyId)
    .where('file_name', '=', fileName)
    .where('bank_answer', 'is not', null)
    .executeTakeFirst();
  if (!answered?.bank_answer) return;
  await app.commands.handle(
    deliveryDecider,
    deliveryStreamId(approvalId),
    {
      type: 'RecordBankAnswer',
      accepted: answered.bank_answer === 'acknowledged',
      facts: {
        approvalId,
        companyId,
        fileId,
        bankText: answered.bank_text ?? '',
        at: new Date().toISOString(),
      },
    },
    { ...ctx, commandId: `bank-answer:${fileId}` },
  );
}

/** The approvals' files delivered in one file at a company's bank, by its name (the acknowledgement names it). */
async function deliveredByName(app: AppServices, companyId: number, fileName: string) {
  return app.db
    .selectFrom('ach_deliveries')
    .select(['approval_id', 'file_id'])
    .where('company_id', '=', companyId)
    .where('file_name', '=', fileName)
    .where('status', '=', 'delivered')
    .execute();
}

/** Reads the company's outbox once: answers to delivered files, then return and NOC files. */
export async function pollBank(app: AppServices, companyId: number, ctx: CommandContext) {
  const connection = await app.bankConnections.connection(companyId);
  if (connection.mode !== 'sftp') return { answers: 0, files: 0 };
  return app.bankConnections.withSftp(companyId, async (sftp) => {
    let answers = 0;
    let files = 0;
    for (const item of await list(sftp, connection.outbox)) {
      const name = item.filename;
      const path = join(connection.outbox, name);
      const answer = /^(.+)\.(ack|rej)$/.exec(name);
      if (answer) {
        const delivered = await deliveredByName(app, companyId, answer[1]);
        if (delivered.length === 0) continue; // not ours, or not yet recorded: looked at again next time
        const bankText = maskDigitRuns(
          (await read(sftp, path))
            .slice(0, 2000)
            .replace(/[^\x20-\x7e\n]/g, '')
            .trim(),
        );
        // The answer is for the file, so for every approval it carries.
        for (const d of delivered)
          await app.commands.handle(
            deliveryDecider,
            deliveryStreamId(d.approval_id),
            {
              type: 'RecordBankAnswer',
              accepted: answer[2] === 'ack',
              facts: {
                approvalId: d.approval_id,
                companyId,
                fileId: d.file_id,
                bankText,
                at: new Date().toISOString(),
              },
            },
            { ...ctx, commandId: `bank-answer:${d.file_id}` },
          );
        await remove(sftp, path);
        answers++;
      } else if (/\.(ach|txt)$/i.test(name)) {
        const content = await read(sftp, path);
        try {
          // The bank's own name, cleaned to what a file name may hold, so the file is never refused
          // (and removed unread) for its name alone.
          const fileName = name.replace(/[^\w .()-]/g, '_').slice(0, 200);
          await applyInboundFile(app, null, { fileName, content }, 'sftp', ctx);
        } catch (err) {
          // An invalid file is recorded as refused (with its reasons) by applyInboundFile: moved on from.
          if (!(err instanceof DomainError)) throw err;
        }
        await remove(sftp, path);
        files++;
      }
    }
    return { answers, files };
  });
}

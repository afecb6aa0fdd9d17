// A file the bank sent back (returns, notifications of change), from its outbox, an ADMIN's upload
// or the command line: checked like a form, read by the strict parser, kept sealed, then applied
// once. Each entry is matched by the trace Billflow wrote (Addenda 07–21) to one entry of a Billflow
// file and recorded on that entry's stream; an entry that matches nothing, or whose amount differs,
// is parked for a person, never dropped. A crash part-way leaves the file received: reading it again
// applies what is left (each entry's command is keyed by the file and the line) and finishes it.
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { InboundSource, ParkedEntry } from '../../schema/payments/events.js';
import type { CommandContext } from '../app/command-handler.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { nextBankingDay } from '../nacha/banking-day.js';
import type { CorrectedData } from '../nacha/change-codes.js';
import { type InboundCorrection, type InboundReturn, parseInboundFile } from '../nacha/inbound.js';
import { DomainError } from '../shared/domain-errors.js';
import { inParallel } from '../shared/parallel.js';
import { entryDecider, entryStreamId } from './entry-decider.js';
import { inboundDecider, inboundStreamId } from './inbound-decider.js';

/** Larger than any bank's return file for one originator (10,000 returns are under 2 MB). */
export const MAX_INBOUND_BYTES = 16 * 1024 * 1024;
/** The data key the bank's files are sealed with: they hold many companies' vendors' numbers. */
export const INBOUND_SUBJECT = 'bank-inbound';
/** Entries applied at once: each is its own stream, so they never conflict, and their appends group. */
const WIDTH = 64;

export const InboundFileInput = z.object({
  fileName: z
    .string()
    .trim()
    .min(1, 'fileName is required')
    .max(200, 'fileName is at most 200 characters')
    .regex(/^[\w .()-]+$/, 'fileName may hold letters, digits, spaces and . _ - ( ) only'),
  content: z
    .string()
    .min(1, 'content is required')
    .max(MAX_INBOUND_BYTES, 'the file is larger than 16 MB')
    .refine((s) => Buffer.byteLength(s) <= MAX_INBOUND_BYTES, 'the file is larger than 16 MB')
    .refine((s) => /^[\x20-\x7e\r\n]*$/.test(s), 'an ACH file holds printable ASCII and line breaks only'),
});

export interface InboundOutcome {
  fileId: string;
  fileName: string;
  /** False: this very file was applied before, and nothing changed now. */
  appliedNow: boolean;
  returns: number;
  corrections: number;
  applied: number;
  alreadyApplied: number;
  parked: readonly ParkedEntry[];
}

interface EntryRow {
  trace_number: string;
  approval_id: string;
  company_id: number;
  qb_vendor_id: string;
  vendor_name: string;
  amount_cents: string | number;
  account_last4: string;
  file_id: string;
  file_name: string;
  bills: Array<{ billId: string; amountCents: number }>;
}

async function setupContents(app: Pick<AppServices, 'pool'>) {
  await app.pool.query(`CREATE TABLE IF NOT EXISTS ach_inbound_contents (
    file_id text PRIMARY KEY,
    ciphertext bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`);
}

/** Keeps the file's text sealed with the bank-inbound key (AES-256-GCM, the file id as additional data). */
async function keepSealed(app: AppServices, fileId: string, text: string) {
  const key = await app.subjectKeys.getOrCreate(INBOUND_SUBJECT);
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(`ach-inbound:${fileId}`));
  const sealed = Buffer.concat([iv, c.update(text, 'utf8'), c.final(), c.getAuthTag()]);
  await setupContents(app);
  await app.pool.query(
    'INSERT INTO ach_inbound_contents (file_id, ciphertext) VALUES ($1, $2) ON CONFLICT (file_id) DO NOTHING',
    [fileId, sealed],
  );
}

/** Nacha gives the originator six banking days from the notification to make the change. */
export function correctionDueBy(receivedOn: string): string {
  let day = receivedOn;
  for (let i = 0; i < 6; i++) day = nextBankingDay(day);
  return day;
}

const last4 = (s: string | undefined) => (s ? s.slice(-4) : null);
const accountTypeOf = (c: CorrectedData): 'savings' | 'checking' | null =>
  c.transactionCode === undefined ? null : c.transactionCode >= 30 ? 'savings' : 'checking';

/**
 * Reads and applies one file. `actor` is the ADMIN who uploaded it; null for the system (the bank's
 * outbox) and the command line.
 */
export async function applyInboundFile(
  app: AppServices,
  actor: Actor | null,
  input: unknown,
  source: InboundSource,
  ctx: CommandContext = {},
): Promise<InboundOutcome> {
  if (source === 'upload') authorize(actor, 'payments.inbound');
  const parsedInput = InboundFileInput.safeParse(input);
  if (!parsedInput.success) {
    const reasons = parsedInput.error.issues.map((i) => i.message);
    // A file from the bank's outbox that is no ACH file at all (binary, too large) is refused on
    // record too, as an invalid one is below: the job removes it, and staff must see that it came.
    const raw = (input ?? {}) as { fileName?: unknown; content?: unknown };
    if (source === 'sftp' && typeof raw.content === 'string') {
      const fileId = createHash('sha256').update(raw.content).digest('hex');
      const fileName =
        String(raw.fileName ?? 'unnamed')
          .replace(/[^\w .()-]/g, '_')
          .slice(0, 200) || 'unnamed';
      await app.commands.handle(
        inboundDecider,
        inboundStreamId(fileId),
        {
          type: 'RefuseInboundFile',
          facts: { fileId, fileName, source, byUserId: null, reasons, at: new Date().toISOString() },
        },
        ctx,
      );
    }
    throw new DomainError('VALIDATION', reasons.join('; '));
  }
  const { fileName, content } = parsedInput.data;
  const fileId = createHash('sha256').update(content).digest('hex');
  const streamId = inboundStreamId(fileId);
  const byUserId = actor?.id ?? null;
  const now = new Date().toISOString();
  const { state } = await app.commands.load(inboundDecider, streamId);
  if (state.status === 'refused')
    throw new DomainError('VALIDATION', `This file was refused before: ${state.reasons.join('; ')}`);
  const parsed = parseInboundFile(content);
  if (!parsed.ok) {
    const reasons = parsed.errors
      .slice(0, 20)
      .map((e) => `${e.line === null ? '' : `line ${e.line}: `}${e.field}: ${e.message}`);
    // The bank's outbox is read by a job: its refusal is kept, so the job moves on and staff see it.
    if (source === 'sftp')
      await app.commands.handle(
        inboundDecider,
        streamId,
        { type: 'RefuseInboundFile', facts: { fileId, fileName, source, byUserId, reasons, at: now } },
        ctx,
      );
    throw new DomainError('VALIDATION', `The file is not a valid ACH return file: ${reasons.join('; ')}`);
  }
  const file = parsed.file;
  if (state.status === 'applied')
    return {
      fileId,
      fileName: state.fileName ?? fileName,
      appliedNow: false,
      returns: file.returns.length,
      corrections: file.corrections.length,
      applied: state.applied,
      alreadyApplied: state.alreadyApplied,
      parked: state.parked,
    };
  if (state.status === 'new') {
    await keepSealed(app, fileId, content);
    await app.commands.handle(
      inboundDecider,
      streamId,
      {
        type: 'ReceiveInboundFile',
        facts: {
          fileId,
          fileName,
          source,
          byUserId,
          returns: file.returns.length,
          corrections: file.corrections.length,
          other: file.other.length + file.refusedCorrections.length,
          at: now,
        },
      },
      ctx,
    );
  }

  const traces = [...new Set([...file.returns, ...file.corrections].map((e) => e.originalTrace))];
  const rows = new Map<string, EntryRow>();
  if (traces.length > 0) {
    const r = await app.pool.query<EntryRow>(
      `SELECT trace_number, approval_id, company_id, qb_vendor_id, vendor_name, amount_cents, account_last4,
              file_id, file_name, bills
         FROM payment_entries WHERE trace_number = ANY($1::text[])`,
      [traces],
    );
    for (const row of r.rows) rows.set(row.trace_number, row);
  }
  // How many entries each matched file carries (by the file's index: one statement for the file).
  const entriesOfFile = new Map<string, number>();
  if (rows.size > 0) {
    const r = await app.pool.query<{ file_id: string; n: string }>(
      'SELECT file_id, count(*) AS n FROM payment_entries WHERE file_id = ANY($1::text[]) GROUP BY file_id',
      [[...new Set([...rows.values()].map((row) => row.file_id))]],
    );
    for (const row of r.rows) entriesOfFile.set(row.file_id, Number(row.n));
  }
  const parked: ParkedEntry[] = [];
  const park = (e: InboundReturn | InboundCorrection, kind: 'return' | 'correction', reason: string) =>
    parked.push({
      line: e.line,
      kind,
      originalTrace: e.originalTrace,
      code: 'returnCode' in e ? e.returnCode : e.changeCode,
      amountCents: e.amountCents,
      reason,
    });
  for (const o of file.other)
    parked.push({
      line: o.line,
      kind: 'other',
      originalTrace: '',
      code: null,
      amountCents: 0,
      reason: o.reason,
    });
  for (const r of file.refusedCorrections)
    parked.push({
      line: r.line,
      kind: 'other',
      originalTrace: r.originalTrace,
      code: r.refusedCode,
      amountCents: 0,
      reason: `the bank refused a notification of change (${r.refusedCode}: ${r.description})`,
    });

  type Work = { entry: InboundReturn; row: EntryRow } | { entry: InboundCorrection; row: EntryRow };
  const work: Work[] = [];
  for (const e of file.returns) {
    const row = rows.get(e.originalTrace);
    if (!row) park(e, 'return', 'no entry of a Billflow file has this trace number');
    else if (Number(row.amount_cents) !== e.amountCents)
      park(
        e,
        'return',
        `the amount differs from the entry's (${e.amountCents} against ${row.amount_cents} cents)`,
      );
    else work.push({ entry: e, row });
  }
  for (const e of file.corrections) {
    const row = rows.get(e.originalTrace);
    if (!row) park(e, 'correction', 'no entry of a Billflow file has this trace number');
    else work.push({ entry: e, row });
  }

  const dueBy = correctionDueBy(now.slice(0, 10));
  // The entries' streams are read in a few round trips, not one each: the commands below then decide
  // on those states (their append still checks each stream's version). Each decision is once-only by
  // the entry's own state (returned once; corrected once per file), so a run again after a crash
  // applies nothing twice without a command id per line.
  await app.commands.prime(
    entryDecider,
    work.map((w) => entryStreamId(w.row.trace_number)),
  );
  const entryCtx = { correlationId: ctx.correlationId, causationId: ctx.causationId, userId: ctx.userId };
  const results = await inParallel(work, WIDTH, async ({ entry, row }) => {
    const base = {
      traceNumber: row.trace_number,
      approvalId: row.approval_id,
      companyId: row.company_id,
      qbVendorId: row.qb_vendor_id,
      vendorName: row.vendor_name,
      inboundFileId: fileId,
      at: now,
    };
    const command =
      'returnCode' in entry
        ? {
            type: 'ReturnEntry' as const,
            facts: {
              ...base,
              amountCents: entry.amountCents,
              accountLast4: row.account_last4,
              fileName: row.file_name,
              returnCode: entry.returnCode,
              description: entry.description,
              action: entry.action,
              bills: row.bills,
              fileEntryCount: entriesOfFile.get(row.file_id) ?? 1,
            },
          }
        : {
            type: 'RecordCorrection' as const,
            facts: {
              ...base,
              changeCode: entry.changeCode,
              description: entry.description,
              correctedAccountNumber: entry.corrected.accountNumber ?? null,
              correctedRoutingNumber: entry.corrected.routingNumber ?? null,
              correctedAccountType: accountTypeOf(entry.corrected),
              correctedName: entry.corrected.name ?? null,
              correctedAccountLast4: last4(entry.corrected.accountNumber),
              correctedRoutingLast4: last4(entry.corrected.routingNumber),
              dueBy,
            },
          };
    const r = await app.commands.handle(entryDecider, entryStreamId(row.trace_number), command, entryCtx);
    return r.events.length > 0;
  });
  const applied = results.filter(Boolean).length;
  const alreadyApplied = results.length - applied;
  const finished = await app.commands.handle(
    inboundDecider,
    streamId,
    { type: 'FinishInboundFile', fileId, applied, alreadyApplied, parked, now: new Date().toISOString() },
    ctx,
  );
  // Read your writes: the list of files and the entries show this file when the answer arrives.
  await awaitProjections(app, finished.position, ['payment_entries']);
  return {
    fileId,
    fileName,
    appliedNow: true,
    returns: file.returns.length,
    corrections: file.corrections.length,
    applied,
    alreadyApplied,
    parked,
  };
}

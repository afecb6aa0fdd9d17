// Writing an approval's payment file (port achFiles.writePaymentFile, called by the approvals'
// generate job with what the file pays): effective the date chosen if it still holds, else the next
// banking day (today in a Same-Day window: services/nacha/effective-date.ts), credits only (220) or
// balanced (200) per the company. The file is one batch of the company's shared file for its cut-off
// window (decision 0040: that file's header, so its modifier and name, and its batch number); its
// traces are taken at the ODFI (decision 0038). It is validated by the library before it is kept (an
// invalid file is never stored), and stored sealed with the company's key.
//
// Idempotent: the file id derives from the approval and the request's version, its window's modifier
// is taken once per window file, its traces once per file id, and the stored row is what is answered,
// so a job run again (a retry, a crash after storing) gets the very same file.
import type { PaymentFileOutcome, PaymentFileRequest, WrittenPaymentFile } from '../app/ach-files.js';
import type { CommandContext } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import { nextBankingDay } from '../nacha/banking-day.js';
import { fileEffectiveDate, SAME_DAY_MARKER } from '../nacha/effective-date.js';
import { achFileDay, buildVendorPaymentFile } from '../nacha/payment-file.js';
import { AchWriteError } from '../nacha/records.js';
import { assertValidAchFile } from '../nacha/validator.js';
import { paymentClock } from '../shared/payment-clock.js';
import { companyForNacha, sameDayAchOf } from './ach-company.js';
import { FILE_ID_MODIFIERS, FileLimitReached, takeFileIdModifier } from './file-modifier.js';
import { findNachaFile, storeNachaFile } from './nacha-files.js';

/** 'YYYYMMDD' → 'YYYY-MM-DD'. */
const isoDay = (day: string) => `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`;

export async function writePaymentFile<S>(
  app: AppServices,
  req: PaymentFileRequest,
  summarize: (written: WrittenPaymentFile) => S,
  ctx: CommandContext,
): Promise<PaymentFileOutcome<S>> {
  const stored = await findNachaFile<S>(app, req.fileId);
  if (stored) return { kind: 'written', summary: stored.summary };
  const [settings, sameDayAch] = await Promise.all([
    companyForNacha(app, req.companyId),
    sameDayAchOf(app, req.companyId),
  ]);
  if ('problem' in settings) return { kind: 'company', problem: settings.problem };
  const { company } = settings;
  const createdAt = paymentClock.now();
  const creditCents = req.credits.map((c) => c.amountCents);
  // A balanced file's offsetting debit is an entry too: Same-Day's per-payment limit holds for it.
  const total = creditCents.reduce((a, b) => a + b, 0);
  const dated = fileEffectiveDate({
    chosen: req.chosenEffectiveDate,
    now: createdAt,
    sameDayAch,
    entryCents: company.balancedFile ? [...creditCents, total] : creditCents,
  });
  const { effectiveDate } = dated;
  const build = (fileIdModifier: string, at: Date, firstTraceSequence?: number) =>
    buildVendorPaymentFile({
      company,
      credits: req.credits,
      effectiveDate,
      ...(dated.sameDay ? { companyDescriptiveDate: SAME_DAY_MARKER } : {}),
      fileIdModifier,
      createdAt: at,
      firstTraceSequence,
    });
  // A file the writer refuses takes none of the day's 36 file id modifiers: it is built once on a
  // trial modifier first (the modifier changes one character of the header, never a refusal).
  try {
    build('A', createdAt);
  } catch (err) {
    if (!(err instanceof AchWriteError)) throw err;
    return { kind: 'refused', error: err };
  }
  // The window's file takes one of the day's modifiers, however many approvals it carries.
  const place = await app.achWindows.place(
    {
      companyId: req.companyId,
      approvalId: req.approvalId,
      fileId: req.fileId,
      version: req.version,
      sameDay: dated.sameDay,
      requestedAt: req.requestedAt ?? createdAt,
    },
    ctx,
  );
  const day = achFileDay(place.createdAt);
  let fileIdModifier: string;
  try {
    fileIdModifier = await takeFileIdModifier(app, req.companyId, day, place.windowFileId, ctx);
  } catch (err) {
    // A rule, not a fault: the file waits for the next banking day, which asks for it again by itself.
    if (!(err instanceof FileLimitReached)) throw err;
    return {
      kind: 'file-limit',
      companyName: company.companyName,
      modifiers: FILE_ID_MODIFIERS.length,
      waitUntil: nextBankingDay(isoDay(day)),
    };
  }
  // Its traces are taken at the ODFI only now, after the file's modifier: a file that waits takes none.
  const entries = req.credits.length + (company.balancedFile ? 1 : 0);
  const firstTrace = await app.achTraces.reserve(
    company.bankRoutingNumber.trim().slice(0, 8),
    req.fileId,
    entries,
    ctx,
  );
  const built = build(fileIdModifier, place.createdAt, firstTrace);
  assertValidAchFile(built.text);
  const written: WrittenPaymentFile = {
    fileName: built.fileName,
    fileIdModifier,
    effectiveDate,
    sameDay: dated.sameDay,
    dateNote: dated.note ?? null,
    entryCount: built.entryCount,
    totalCreditCents: built.totalCreditCents,
    totalDebitCents: built.totalDebitCents,
    balanced: company.balancedFile,
    traceNumbers: built.traceNumbers,
    batchNumber: place.batch,
    window: { at: place.windowAt, file: place.file, via: place.via },
  };
  const kept = await storeNachaFile<S>(app, {
    fileId: req.fileId,
    approvalId: req.approvalId,
    companyId: req.companyId,
    kind: 'payment',
    version: req.version,
    fileName: built.fileName,
    summary: summarize(written),
    text: built.text,
  });
  return { kind: 'written', summary: kept.summary };
}

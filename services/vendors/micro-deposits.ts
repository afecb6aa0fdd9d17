// A micro-deposit check of a held bank detail change (ADMIN, MODERATOR, in their staff scope): two
// credits of 1–99 cents to the change's new account in a penny-test file of their own, which staff
// send to the bank; the vendor's contact on record (its e-mail before the change) gets a link to enter
// the amounts (banking-links.ts). The file takes one of the company's penny-test file ids under the
// same limits as an approval's penny test, and is kept sealed like every NACHA file, through the
// kernel's port (services/app/ach-files.ts). The amounts are chosen here, sealed in the event, and
// never written in plain anywhere else: not in the file's summary, a read model or a log line.
import { randomInt, randomUUID } from 'node:crypto';
import { BankingChangeIdInput } from '../../schema/vendors/commands.js';
import { shownTail } from '../../schema/vendors/events.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { nextBankingDay } from '../nacha/banking-day.js';
import { achFileDay, buildPennyTestFile, type PaymentFile } from '../nacha/payment-file.js';
import { AchWriteError } from '../nacha/records.js';
import { validateAchFile } from '../nacha/validator.js';
import { AppError, parseInput } from '../shared/errors.js';
import { BANKING_READ_MODELS, withPendingChange } from './banking-changes.js';
import { type ChangeStory, changeStory } from './banking-notices.js';
import { vendorDecider, vendorStreamId } from './vendor-decider.js';
import { VENDOR_LINK_TTL_DAYS } from './vendor-link-token.js';
import { answer, parseId, requireChangeableVendor, requireVendor, type VendorDto } from './vendor-rows.js';

export const NO_CONTACT =
  'The vendor has no e-mail on record from before this change, so nobody could receive the link to enter the amounts: have another ADMIN or MODERATOR approve the change instead';

/** Whose stored file a vendor's verification is (nacha_files keeps an owner id per file). */
export const microDepositFileOwner = (vendorId: number) => `vendor-${vendorId}`;

const isoDay = (day: string) => `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`;

async function changeOf(app: AppServices, streamId: string, changeId: string): Promise<ChangeStory> {
  const story = await changeStory(app, streamId, changeId);
  if (!story) throw new AppError('NOT_FOUND', 'Bank details change not found');
  return story;
}

/** POST /api/vendors/{id}/banking-changes/{changeId}/micro-deposits: the file, the event, the vendor's link. */
export async function startMicroDeposits(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  changeIdInput: unknown,
): Promise<VendorDto> {
  authorize(actor, 'vendors.microDeposits');
  const vendorId = parseId(id);
  const { changeId } = parseInput(BankingChangeIdInput, { changeId: changeIdInput });
  const row = await requireChangeableVendor(app, actor, vendorId);
  const streamId = vendorStreamId(row.company_id, row.qb_vendor_id);
  const story = await changeOf(app, streamId, changeId);
  const pending = story.state.pending;
  const now = new Date();
  const verificationId = randomUUID();
  const fileId = randomUUID();
  const amountsCents = [randomInt(1, 100), randomInt(1, 100)] as const;
  const command = (file: { fileName: string; fileIdModifier: string; effectiveDate: string }) => ({
    type: 'StartMicroDeposits' as const,
    changeId,
    verificationId,
    amountsCents,
    file: { fileId, ...file },
    accountLast4: pending ? shownTail(pending.banking.accountNumber) : null,
    byUserId: actor.id,
    expiresAt: new Date(now.getTime() + VENDOR_LINK_TTL_DAYS * 86_400_000).toISOString(),
    now: now.toISOString(),
  });
  // The decider's refusals (not pending, frozen) before a file id is taken: a dry run.
  vendorDecider.decide(command({ fileName: '-', fileIdModifier: '-', effectiveDate: '-' }), story.state);
  if (!pending) throw new AppError('CONFLICT', 'This bank detail change is no longer pending');
  if (!story.contactEmail) throw new AppError('CONFLICT', NO_CONTACT);
  const settings = await app.achFiles.company(row.company_id);
  if ('problem' in settings) throw new AppError('VALIDATION', settings.problem.message);
  const day = achFileDay(now);
  const effectiveDate = nextBankingDay(isoDay(day));
  const credits = amountsCents.map((amountCents) => ({
    name: story.vendorName,
    routingNumber: pending.banking.routingNumber,
    accountNumber: pending.banking.accountNumber,
    accountType: pending.banking.accountType,
    amountCents,
    identification: row.qb_vendor_id.slice(0, 15),
  }));
  const build = (fileIdModifier: string): PaymentFile => {
    let file: PaymentFile;
    try {
      file = buildPennyTestFile({
        company: settings.company,
        credits,
        effectiveDate,
        fileIdModifier,
        createdAt: now,
      });
    } catch (err) {
      if (!(err instanceof AchWriteError)) throw err;
      throw new AppError(
        'VALIDATION',
        `The micro-deposit file cannot be written: ${err.field} ${err.reason}`,
      );
    }
    const issues = validateAchFile(file.text);
    if (issues.length > 0)
      throw new Error(`the NACHA library refused the micro-deposit file it wrote: ${issues[0].message}`);
    return file;
  };
  // A trial on a stand-in modifier: a file the writer refuses takes none of the day's.
  build(app.achFiles.trialModifier);
  const ctx = commandContext(actor);
  const fileIdModifier = await app.achFiles.takePennyTestModifier(
    row.company_id,
    day,
    fileId,
    [{ qbVendorId: row.qb_vendor_id, name: story.vendorName }],
    ctx,
  );
  const built = build(fileIdModifier);
  await app.achFiles.storePennyTest({
    fileId,
    ownerId: microDepositFileOwner(vendorId),
    companyId: row.company_id,
    fileName: built.fileName,
    // No amount and no total: the sum of the two would narrow the guess.
    summary: { kind: 'micro-deposits', vendorId, changeId, verificationId, fileIdModifier, entryCount: 2 },
    text: built.text,
  });
  const r = await app.commands.handle(
    vendorDecider,
    streamId,
    command({ fileName: built.fileName, fileIdModifier, effectiveDate }),
    ctx,
  );
  await awaitProjections(app, r.position, [...BANKING_READ_MODELS]);
  return withPendingChange(app, await answer(app, vendorId, r.position));
}

/**
 * GET /api/vendors/{id}/banking-changes/{changeId}/micro-deposits/file: the latest verification's
 * file as text (it holds the new account number and the amounts), its download recorded first.
 */
export async function downloadMicroDepositFile(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  changeIdInput: unknown,
): Promise<{ fileName: string; text: string }> {
  authorize(actor, 'vendors.microDeposits');
  const vendorId = parseId(id);
  const { changeId } = parseInput(BankingChangeIdInput, { changeId: changeIdInput });
  const row = await requireVendor(app, actor, vendorId);
  const streamId = vendorStreamId(row.company_id, row.qb_vendor_id);
  const sent = (await changeOf(app, streamId, changeId)).verifications.at(-1);
  if (!sent) throw new AppError('NOT_FOUND', 'No micro-deposit check was started for this change');
  const found = await app.achFiles.read(microDepositFileOwner(vendorId), sent.fileId);
  if (!found) throw new AppError('NOT_FOUND', 'File not found');
  if (found === 'gone')
    throw new AppError('NOT_FOUND', 'The file can no longer be read: its company’s data was forgotten');
  await app.commands.handle(
    vendorDecider,
    streamId,
    {
      type: 'RecordMicroDepositsDownload',
      changeId,
      verificationId: sent.verificationId,
      fileId: sent.fileId,
      byUserId: actor.id,
      now: new Date().toISOString(),
    },
    commandContext(actor),
  );
  return found;
}

// The penny test (reference/nacha.md micro-entries): a file of its own crediting
// each vendor of the approval with complete banking a random 1–99 cents (chosen here, outside the
// decider), company entry description ACCTVERIFY, its own file id modifier; stored encrypted with the
// company's key as payment files are, and recorded on the approval (PennyTestGenerated).
// The modifier is one of the company's few a day (the payments module's file-modifier.ts: penny tests are limited per
// vendor and per company, and never take the ones payment files need), so a file that cannot be
// written must not use one up: the file is built and validated first with a stand-in modifier, and
// only then is the real one taken and the file built again with it.
import { randomInt, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { PennyTestResult } from '../../../schema/approvals/payment-answers.js';
import { type AppServices, awaitProjections } from '../../app/context.js';
import { type Actor, authorize, commandContext } from '../../auth/permissions.js';
import { nextBankingDay } from '../../nacha/banking-day.js';
import { achFileDay, buildPennyTestFile, type VendorCredit } from '../../nacha/payment-file.js';
import { AchWriteError } from '../../nacha/records.js';
import { assertValidAchFile } from '../../nacha/validator.js';
import { AppError } from '../../shared/errors.js';
import { approvalDecider, approvalStreamId } from '../approval-decider.js';
import { parseApprovalId, requireActionableRow } from '../rows.js';
import { isoDay, writeProblem } from './nacha-generate.js';
import { vendorsForNacha, vendorsOf } from './nacha-sources.js';
import { PENNY_TEST_STATUSES } from './payment-decider.js';

export const NO_COMPLETE_BANKING = 'No vendors have complete banking information';
export const PENNY_VALIDATION = 'Penny test validation failed';

export async function generatePennyTest(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<z.infer<typeof PennyTestResult>> {
  authorize(actor, 'approvals.write');
  const approvalId = parseApprovalId(id);
  await requireActionableRow(app, actor, approvalId);
  const streamId = approvalStreamId(approvalId);
  const { state } = await app.commands.load(approvalDecider, streamId);
  if (!PENNY_TEST_STATUSES.includes(state.status!))
    throw new AppError(
      'CONFLICT',
      `Cannot generate a penny test for an approval with status ${state.status}`,
    );
  const companyId = state.companyId!;
  const approved = new Set(state.approvedBillIds);
  const bills = state.bills.filter((b) => approved.size === 0 || approved.has(b.Id));
  const [company, vendors] = await Promise.all([
    app.achFiles.company(companyId),
    vendorsForNacha(app, companyId, vendorsOf(bills)),
  ]);
  // A vendor without banking (or not synced, inactive) is not tested; one whose banking a file
  // cannot hold is a validation failure the screen lists.
  const bad = vendors.faulty;
  if (vendors.payable.size === 0 && bad.length === 0) throw new AppError('VALIDATION', NO_COMPLETE_BANKING);
  if (bad.length > 0)
    throw new AppError('VALIDATION', `${PENNY_VALIDATION}: ${bad.map((p) => p.message).join('; ')}`);
  if ('problem' in company) throw new AppError('VALIDATION', company.problem.message);
  const credits: VendorCredit[] = [...vendors.payable.values()].map((v) => ({
    name: v.name,
    routingNumber: v.banking.routingNumber,
    accountNumber: v.banking.accountNumber,
    accountType: v.banking.accountType,
    amountCents: randomInt(1, 100),
    identification: v.qbVendorId.slice(0, 15),
  }));
  const fileId = randomUUID();
  const createdAt = new Date();
  const day = achFileDay(createdAt);
  const ctx = commandContext(actor);
  const build = (fileIdModifier: string) => {
    let file: ReturnType<typeof buildPennyTestFile>;
    try {
      file = buildPennyTestFile({
        company: company.company,
        credits,
        effectiveDate: nextBankingDay(isoDay(day)),
        fileIdModifier,
        createdAt,
      });
    } catch (err) {
      if (!(err instanceof AchWriteError)) throw err;
      const p = writeProblem(
        err,
        credits.map((c) => c.name),
      );
      throw new AppError(
        'VALIDATION',
        p.kind === 'vendor-banking' ? `${PENNY_VALIDATION}: ${p.message}` : p.message,
      );
    }
    assertValidAchFile(file.text);
    return file;
  };
  // The trial: the same file with a stand-in modifier; a refusal here takes no modifier.
  build(app.achFiles.trialModifier);
  const fileIdModifier = await app.achFiles.takePennyTestModifier(
    companyId,
    day,
    fileId,
    [...vendors.payable.values()].map((v) => ({ qbVendorId: v.qbVendorId, name: v.name })),
    ctx,
  );
  const built = build(fileIdModifier);
  const totalCents = credits.reduce((s, c) => s + c.amountCents, 0);
  const summary = {
    fileId,
    fileName: built.fileName,
    batchNumber: built.batchNumber,
    fileIdModifier,
    totalCents,
    vendorCount: credits.length,
  };
  await app.achFiles.storePennyTest({
    fileId,
    ownerId: approvalId,
    companyId,
    fileName: built.fileName,
    summary,
    text: built.text,
  });
  const recorded = await app.commands.handle(
    approvalDecider,
    streamId,
    { type: 'RecordPennyTest', file: summary, byUserId: actor.id, now: new Date().toISOString() },
    ctx,
  );
  // Read your writes: the detail read next shows the penny test.
  await awaitProjections(app, recorded.position, ['approvals']);
  return {
    testAmount: totalCents / 100,
    vendorCount: credits.length,
    fileName: built.fileName,
    batchNumber: built.batchNumber,
  };
}

// Staff's calls on an approval's files: Regenerate (GenerateNacha: a new version is asked
// for; refused from BANK_UPLOADED on, a second file would pay twice) and the download of a stored
// file as text (ADMIN, MODERATOR), each download recorded on the approval before the text is given.

import { RegenerateNachaInput } from '../../../schema/approvals/commands.js';
import type { AppServices } from '../../app/context.js';
import { type Actor, authorize, commandContext } from '../../auth/permissions.js';
import { nextBankingDay } from '../../nacha/banking-day.js';
import { achFileDay } from '../../nacha/payment-file.js';
import { FILE_ID_MODIFIERS } from '../../nacha/records.js';
import { AppError, parseInput } from '../../shared/errors.js';
import { approvalDecider, approvalStreamId } from '../approval-decider.js';
import { answerApproval, onApproval } from '../command.js';
import { type ApprovalDto, parseApprovalId, requireActionableRow, requireRow } from '../rows.js';
import { checkedEffectiveDate } from './chosen-date.js';
import { isoDay } from './nacha-generate.js';

export const REGENERATING = 'The NACHA file is being regenerated';

/**
 * POST /approvals/{id}/regenerate-nacha: the new version's request, with the effective entry date
 * chosen if any (checked first: a refused date records nothing); the file follows from the job.
 */
export async function regenerateNacha(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  body?: unknown,
): Promise<{ message: string; approval: ApprovalDto }> {
  authorize(actor, 'approvals.write');
  const { effectiveDate: chosen } = parseInput(RegenerateNachaInput, body ?? {});
  const approvalId = parseApprovalId(id);
  const row = await requireActionableRow(app, actor, approvalId);
  const effectiveDate = await checkedEffectiveDate(app, row.company_id, chosen);
  const r = await onApproval(app, actor, approvalId, {
    type: 'RequestNacha',
    reason: 'regenerate',
    byUserId: actor.id,
    ...(effectiveDate ? { effectiveDate } : {}),
    now: new Date().toISOString(),
  });
  return {
    message: await regenerationMessage(app, r.state.companyId!),
    approval: await answerApproval(app, r.approvalId, r.position, r.state),
  };
}

/** What Regenerate will really do: make the file now, or wait for a banking day with files left. */
async function regenerationMessage(app: AppServices, companyId: number): Promise<string> {
  const day = achFileDay(new Date());
  if ((await app.achFiles.modifiersLeft(companyId, day)) > 0) return REGENERATING;
  return `The company has sent the ${FILE_ID_MODIFIERS.length} NACHA files its bank takes today: the new version will be made on ${nextBankingDay(isoDay(day))}, with no one needing to act`;
}

const FILE_ID = /^[0-9a-f-]{36}$/i;
const GONE = 'The file can no longer be read: its company’s data was forgotten';

/** GET /approvals/{id}/nacha-files/{fileId}: the file's text, its download on record first. */
export async function downloadNachaFile(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  fileIdInput: unknown,
): Promise<{ fileName: string; text: string }> {
  authorize(actor, 'approvals.nachaDownload');
  const approvalId = parseApprovalId(id);
  await requireRow(app, actor, approvalId);
  const fileId =
    typeof fileIdInput === 'string' && FILE_ID.test(fileIdInput) ? fileIdInput.toLowerCase() : null;
  if (!fileId) throw new AppError('NOT_FOUND', 'File not found');
  const ctx = commandContext(actor);
  // What goes to the bank is the window's shared file that carries this one (decision 0040), sealed
  // by this download: an approval made later for the window goes into the window's next file.
  const file = await app.achFiles.download(
    approvalId,
    fileId,
    () =>
      app.commands.handle(
        approvalDecider,
        approvalStreamId(approvalId),
        { type: 'RecordNachaDownload', fileId, byUserId: actor.id, now: new Date().toISOString() },
        ctx,
      ),
    ctx,
  );
  if (!file) throw new AppError('NOT_FOUND', 'File not found');
  if (file === 'gone') throw new AppError('NOT_FOUND', GONE);
  return file;
}

// What staff do when a payment step's e-mail link cannot serve: send the current step's link again
// (ResendPaymentLink: a link lapsed after its days, the signing key changed, a mail went astray), or
// confirm the step in the app themselves (ConfirmPaymentStep), each with a reason kept on the
// approval's stream. Neither is left to the screens: the decider refuses a status with no step
// waiting, and a resend with nobody to send to says what to do instead.
import type { LinkAction } from '../../../schema/approvals/payment-events.js';
import type { AppServices } from '../../app/context.js';
import { type Actor, authorize, commandContext } from '../../auth/permissions.js';
import { DomainError } from '../../shared/domain-errors.js';
import { parseInput } from '../../shared/errors.js';
import { approvalDecider, approvalStreamId } from '../approval-decider.js';
import { answerApproval } from '../command.js';
import { counted } from '../history-words.js';
import { type ApprovalDto, parseApprovalId, requireActionableRow } from '../rows.js';
import { alreadyDone } from './confirm.js';
import { linkRecipients } from './links.js';
import { STEP_OF_STATUS } from './payment-decider.js';
import { ConfirmPaymentStepInput, ResendPaymentLinkInput } from './step-reason.js';

export interface StepActionResult {
  approval: ApprovalDto;
  /** What happened, in the words the toast shows. */
  message: string;
}

const STEP_DONE_WORDS: Record<LinkAction, string> = {
  'bank-uploaded': 'The bank upload is already confirmed',
  'payment-completed': 'The payment is already confirmed as completed',
};

/**
 * POST /approvals/{id}/links/resend: fresh links for the current step (NACHA_GENERATED: the bank
 * upload; BANK_UPLOADED: the payment) to the manager and recipients of now, mailed by the
 * `payment-mail` process manager from the recorded request (workers/approvals/payments.ts).
 */
export async function resendPaymentLink(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  body: unknown,
): Promise<StepActionResult> {
  authorize(actor, 'approvals.write');
  const approvalId = parseApprovalId(id);
  const { reason } = parseInput(ResendPaymentLinkInput, body);
  await requireActionableRow(app, actor, approvalId);
  const stream = approvalStreamId(approvalId);
  const { state } = await app.commands.load(approvalDecider, stream);
  const people = await linkRecipients(app, state);
  const r = await app.commands.handle(
    approvalDecider,
    stream,
    {
      type: 'ResendPaymentLink',
      byUserId: actor.id,
      reason,
      recipientCount: people.length,
      now: new Date().toISOString(),
    },
    commandContext(actor),
  );
  return {
    approval: await answerApproval(app, approvalId, r.position, r.state),
    message: `Link sent again to ${counted(people.length, 'person', 'people')}`,
  };
}

/**
 * POST /approvals/{id}/confirm-step: staff confirm the current step (MarkBankUploaded at
 * NACHA_GENERATED, MarkPaymentCompleted at BANK_UPLOADED) in place of the link's recipients, with a
 * reason. `action`, when given, is the step the person saw: a step already past is refused rather
 * than the next one confirmed.
 */
export async function confirmPaymentStep(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  body: unknown,
): Promise<StepActionResult> {
  authorize(actor, 'approvals.write');
  const approvalId = parseApprovalId(id);
  const input = parseInput(ConfirmPaymentStepInput, body);
  await requireActionableRow(app, actor, approvalId);
  const stream = approvalStreamId(approvalId);
  const { state } = await app.commands.load(approvalDecider, stream);
  if (input.action && alreadyDone(state.status, input.action))
    throw new DomainError('CONFLICT', STEP_DONE_WORDS[input.action]);
  const step = state.status ? STEP_OF_STATUS[state.status] : undefined;
  if (!step || (input.action && input.action !== step))
    throw new DomainError(
      'CONFLICT',
      `Cannot confirm a payment step of an approval with status ${state.status}: the bank upload is confirmed at NACHA Generated, the payment at Bank Uploaded`,
    );
  const r = await app.commands.handle(
    approvalDecider,
    stream,
    {
      type: step === 'bank-uploaded' ? 'MarkBankUploaded' : 'MarkPaymentCompleted',
      byUserId: actor.id,
      link: null,
      reason: input.reason,
      now: new Date().toISOString(),
    },
    commandContext(actor),
  );
  return {
    approval: await answerApproval(app, approvalId, r.position, r.state),
    message:
      step === 'bank-uploaded'
        ? 'Bank upload confirmed in the app'
        : 'Payment confirmed as completed in the app',
  };
}

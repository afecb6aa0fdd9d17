// The reason staff give when they act on a payment step in place of its e-mail links: sending the
// step's link again, or confirming the step in the app. It is kept on the approval's stream and shown
// in its history, so an auditor reads why the step did not go through the link's recipient.
import { z } from 'zod';
import { LinkAction } from '../../../schema/approvals/payment-events.js';
import { plainText } from '../../../schema/shared/text-rules.js';

export const STEP_REASON_MIN = 3;
export const STEP_REASON_MAX = 500;
export const REASON_LENGTH = `Give a reason of ${STEP_REASON_MIN} to ${STEP_REASON_MAX} characters`;

const reason = plainText(STEP_REASON_MAX, 'Please give a reason').pipe(
  z.string().min(STEP_REASON_MIN, REASON_LENGTH),
);

/** Send the current step's link again: why. */
export const ResendPaymentLinkInput = z.object({ reason });
export type ResendPaymentLinkInput = z.infer<typeof ResendPaymentLinkInput>;

/**
 * Confirm the current step in the app: why, and (from the screens) the step the person saw, so a
 * second press after the step went through does not confirm the next one.
 */
export const ConfirmPaymentStepInput = z.object({ reason, action: LinkAction.optional() });
export type ConfirmPaymentStepInput = z.infer<typeof ConfirmPaymentStepInput>;

/** The rule the decider holds a reason to (the inputs above trim it first). */
export const reasonFits = (r: string) =>
  r.trim().length >= STEP_REASON_MIN && r.trim().length <= STEP_REASON_MAX;

// The payment half's commands staff use signed in, each declared once (services/app/endpoints.ts):
// regenerate the NACHA file, approve changed banking again, a penny test, retry the QuickBooks sync,
// send the current step's link again and confirm the step in the app. Each answers with the message
// to show, which says what really happened.
import { z } from 'zod';
import { Approval } from '../../../schema/approvals/answers.js';
import { RegenerateNachaInput } from '../../../schema/approvals/commands.js';
import { PennyTestResult } from '../../../schema/approvals/payment-answers.js';
import {
  PENNY_LIMIT,
  PENNY_TESTS_PER_COMPANY_PER_DAY,
  PENNY_TESTS_PER_VENDOR_PER_DAY,
} from '../../app/ach-files.js';
import { declareCommand, type WithId, byId as withBody } from '../../app/endpoints.js';
import type { Actor } from '../../auth/permissions.js';
import { approveBankingAgain } from '../approve-again.js';
import type { ApprovalDto } from '../rows.js';
import { withViewer } from '../viewer.js';
import { regenerateNacha } from './nacha-actions.js';
import { generatePennyTest } from './penny-test.js';
import { retryQbSync } from './retry-qb-sync.js';
import { confirmPaymentStep, resendPaymentLink } from './step-actions.js';
import {
  ConfirmPaymentStepInput,
  ResendPaymentLinkInput,
  STEP_REASON_MAX,
  STEP_REASON_MIN,
} from './step-reason.js';

const A = '/api/bill-approval/approvals';
const TAGS = ['approvals'];
const params = z.object({ id: z.string().max(64).describe('Approval id (UUID)') });
const IN_SCOPE = 'an approval of a company the caller may see (assigned staff only, under the policy)';
type Answered = { approval: ApprovalDto; message: string };
/** REST: the approval as the caller sees it, the message in the envelope; GraphQL: both as fields. */
const rest = {
  input: (r: { params: Record<string, string> }) => r.params.id,
  answer: (r: Answered, actor: Actor | null) => withViewer(r.approval, actor),
  message: (r: Answered) => r.message,
};
const byId = { args: { id: 'String!' }, input: (args: Record<string, unknown>) => args.id };

export const paymentEndpoints = [
  declareCommand({
    name: 'GenerateNacha',
    permission: 'approvals.write',
    scope: IN_SCOPE,
    run: (app, actor, { id, body }: WithId) => regenerateNacha(app, actor, id, body),
    rest: {
      method: 'POST',
      path: `${A}/:id/regenerate-nacha`,
      ...rest,
      input: withBody,
      doc: {
        summary: 'Ask for a new version of the approval’s NACHA file (GenerateNacha)',
        description:
          "The file is made by a job; earlier versions stay downloadable. Refused (409) from BANK_UPLOADED on: the file is at the bank, a second one would pay twice. effectiveDate ('YYYY-MM-DD', optional): the file's effective entry date, a banking day, not past, at most 30 days ahead, today only for a company that sends Same-Day ACH before 14:45 New York (else 400, nothing recorded); absent: the next banking day (today in a same-day window).",
        tags: TAGS,
        params,
        body: RegenerateNachaInput,
        data: Approval,
        errors: [400, 403, 404, 409],
      },
    },
    graphql: {
      name: 'regenerateNacha',
      args: { id: 'String!', effectiveDate: 'String' },
      input: (args: Record<string, unknown>) => ({
        id: args.id,
        body: { effectiveDate: args.effectiveDate },
      }),
      returns: 'NachaRegenerateResult!',
      description:
        'Asks for a new version of the NACHA file (GenerateNacha); earlier versions stay downloadable. Refused from BANK_UPLOADED on: a second file would pay twice',
    },
  }),
  declareCommand({
    name: 'ApproveBankingAgain',
    permission: 'approvals.write',
    scope: `${IN_SCOPE}; not its creator when the policy says so`,
    run: (app, actor, id: unknown) => approveBankingAgain(app, actor, id),
    rest: {
      method: 'POST',
      path: `${A}/:id/approve-again`,
      ...rest,
      doc: {
        summary: 'Approve again the bank details of vendors whose banking changed after approval',
        description:
          'A file pays a vendor only the banking its approver was shown (a fingerprint recorded at approval); a vendor whose banking changed since is held out of the file, named. This records the live banking of those vendors as approved (the detail’s bankingReview shows the tails first), so Regenerate makes a file that pays it. ADMIN, MODERATOR; not the creator when the company’s policy says so (403). Refused (409) before approval, once the file is at the bank, and when no vendor’s banking changed.',
        tags: TAGS,
        params,
        data: Approval,
        errors: [403, 404, 409],
      },
    },
    graphql: {
      name: 'approveBankingAgain',
      ...byId,
      returns: 'BankingApprovedAgainResult!',
      description:
        'Records as approved the live bank details of the vendors whose banking changed after approval (held out of the file until then), so Regenerate pays them. ADMIN, MODERATOR; not the creator when the policy says so; refused before approval, at the bank, and when nothing changed',
    },
  }),
  declareCommand({
    name: 'GeneratePennyTest',
    permission: 'approvals.write',
    scope: IN_SCOPE,
    run: (app, actor, id: unknown) => generatePennyTest(app, actor, id),
    rest: {
      method: 'POST',
      path: `${A}/:id/generate-penny-test`,
      input: rest.input,
      message: 'Penny test generated',
      doc: {
        summary: 'A penny-test file: 1–99 cents to each vendor with complete banking (GeneratePennyTest)',
        description: `400 'No vendors have complete banking information', or 'Penny test validation failed: …' naming the vendors whose banking a file cannot hold. 409 '${PENNY_LIMIT}: …' past ${PENNY_TESTS_PER_VENDOR_PER_DAY} penny tests a vendor or ${PENNY_TESTS_PER_COMPANY_PER_DAY} a company in one New York day, or when the company's payment files have used the file ids penny tests may take; the text says when the limit resets (midnight New York time).`,
        tags: TAGS,
        params,
        data: PennyTestResult,
        errors: [403, 404, 409],
      },
    },
    graphql: {
      name: 'generatePennyTest',
      ...byId,
      returns: 'PennyTestResult!',
      description:
        'A penny-test file: 1–99 cents to each vendor of the approval with complete banking (GeneratePennyTest)',
    },
  }),
  declareCommand({
    name: 'RetryQbSync',
    permission: 'approvals.write',
    scope: IN_SCOPE,
    run: (app, actor, id: unknown) => retryQbSync(app, actor, id),
    rest: {
      method: 'POST',
      path: `${A}/:id/retry-qb-sync`,
      ...rest,
      doc: {
        summary:
          'Pay in QuickBooks the bills of a PAYMENT_COMPLETED approval not yet paid there (RetryQbSync)',
        description:
          'Starts a new run of the QuickBooks payment sync; each bill is paid once across every run (its requestid derives from the approval and the bill). Refused (409) before the payment is completed, while a run is going, and once every bill is paid.',
        tags: TAGS,
        params,
        data: Approval,
        errors: [403, 404, 409],
      },
    },
    graphql: {
      name: 'retryQbSync',
      ...byId,
      returns: 'QbSyncRetryResult!',
      description:
        'Pays in QuickBooks the bills of a PAYMENT_COMPLETED approval not yet paid there (RetryQbSync); refused before the payment is completed, while a run is going, and once every bill is paid',
    },
  }),
  declareCommand({
    name: 'ResendPaymentLink',
    permission: 'approvals.write',
    scope: IN_SCOPE,
    run: (app, actor, { id, body }: WithId) => resendPaymentLink(app, actor, id, body),
    rest: {
      method: 'POST',
      path: `${A}/:id/links/resend`,
      input: withBody,
      answer: rest.answer,
      message: rest.message,
      doc: {
        summary: 'Send the current payment step’s e-mail link again, with a reason (ResendPaymentLink)',
        description: `Fresh links (new ids, a new expiry) for the step the approval waits on — the bank upload at NACHA_GENERATED, the payment at BANK_UPLOADED — to its manager and recipients now, mailed by a job; the reason (${STEP_REASON_MIN}–${STEP_REASON_MAX} characters) is kept in the history. The step's earlier links keep working until they expire. Refused (409) from any other status, and when the approval has neither a manager with an e-mail address nor recipients (confirm the step in the app instead, or add a recipient).`,
        tags: TAGS,
        params,
        body: ResendPaymentLinkInput,
        data: Approval,
        errors: [400, 403, 404, 409],
      },
    },
    graphql: {
      name: 'resendPaymentLink',
      args: { id: 'String!', reason: 'String!' },
      returns: 'PaymentStepResult!',
      input: (args) => ({ id: args.id, body: { reason: args.reason } }),
      description:
        'Sends the current payment step’s e-mail link again (ResendPaymentLink) to the manager and recipients, with a reason; refused outside NACHA_GENERATED and BANK_UPLOADED, and when there is nobody to send to',
    },
  }),
  declareCommand({
    name: 'ConfirmPaymentStep',
    permission: 'approvals.write',
    scope: IN_SCOPE,
    run: (app, actor, { id, body }: WithId) => confirmPaymentStep(app, actor, id, body),
    rest: {
      method: 'POST',
      path: `${A}/:id/confirm-step`,
      input: withBody,
      answer: rest.answer,
      message: rest.message,
      doc: {
        summary: 'Confirm the current payment step in the app, with a reason (ConfirmPaymentStep)',
        description: `Staff confirm in place of the e-mail link's recipients: the bank upload at NACHA_GENERATED (MarkBankUploaded), the payment at BANK_UPLOADED (MarkPaymentCompleted). The reason (${STEP_REASON_MIN}–${STEP_REASON_MAX} characters) is recorded on the confirmation and shown in the history and on the detail. \`action\` (bank-uploaded, payment-completed), when given, names the step the caller saw: refused (409) if that step is already past. Refused (409) from any other status.`,
        tags: TAGS,
        params,
        body: ConfirmPaymentStepInput,
        data: Approval,
        errors: [400, 403, 404, 409],
      },
    },
    graphql: {
      name: 'confirmPaymentStep',
      args: {
        id: 'String!',
        reason: 'String!',
        action: {
          type: 'String',
          description: 'The step the caller saw: bank-uploaded or payment-completed',
        },
      },
      returns: 'PaymentStepResult!',
      input: (args) => ({
        id: args.id,
        body: { reason: args.reason, ...(args.action == null ? {} : { action: args.action }) },
      }),
      description:
        'Confirms the current payment step in the app (ConfirmPaymentStep: the bank upload at NACHA_GENERATED, the payment at BANK_UPLOADED) with a reason, in place of the e-mail link',
    },
  }),
];

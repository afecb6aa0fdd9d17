// The payment half's mutations staff use signed in: regenerateNacha, approveBankingAgain,
// generatePennyTest, retryQbSync.

import { approveBankingAgain } from '../../../approvals/approve-again.js';
import { regenerateNacha } from '../../../approvals/payments/nacha-actions.js';
import { generatePennyTest } from '../../../approvals/payments/penny-test.js';
import { retryQbSync } from '../../../approvals/payments/retry-qb-sync.js';
import type { ApprovalDto } from '../../../approvals/rows.js';
import { builder } from '../builder.js';
import { run } from '../errors.js';
import { ApprovalRef } from './approval.js';
import { PennyTestResultType } from './approval-payment.js';

/** Regenerate's answer: the approval (NACHA_PENDING, the new version asked for) and the message to show. */
const NachaRegenerateResult = builder
  .objectRef<{ approval: ApprovalDto; message: string }>('NachaRegenerateResult')
  .implement({
    fields: (t) => ({
      approval: t.field({ type: ApprovalRef, resolve: (r) => r.approval }),
      message: t.exposeString('message'),
    }),
  });

builder.mutationField('regenerateNacha', (t) =>
  t.field({
    type: NachaRegenerateResult,
    description:
      'Asks for a new version of the NACHA file (GenerateNacha); earlier versions stay downloadable. Refused from BANK_UPLOADED on: a second file would pay twice',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) => run(() => regenerateNacha(ctx.app, ctx.actor, args.id)),
  }),
);

/** Approve again's answer: the approval (its bankingReview as approved now) and the message to show. */
const BankingApprovedAgainResult = builder
  .objectRef<{ approval: ApprovalDto; message: string }>('BankingApprovedAgainResult')
  .implement({
    fields: (t) => ({
      approval: t.field({ type: ApprovalRef, resolve: (r) => r.approval }),
      message: t.exposeString('message'),
    }),
  });

builder.mutationField('approveBankingAgain', (t) =>
  t.field({
    type: BankingApprovedAgainResult,
    description:
      'Records as approved the live bank details of the vendors whose banking changed after approval (held out of the file until then), so Regenerate pays them. ADMIN, MODERATOR; not the creator when the policy says so; refused before approval, at the bank, and when nothing changed',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) => run(() => approveBankingAgain(ctx.app, ctx.actor, args.id)),
  }),
);

builder.mutationField('generatePennyTest', (t) =>
  t.field({
    type: PennyTestResultType,
    description:
      'A penny-test file: 1–99 cents to each vendor of the approval with complete banking (GeneratePennyTest)',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) => run(() => generatePennyTest(ctx.app, ctx.actor, args.id)),
  }),
);

/** What a retry answers: the approval as it is now (sync SYNCING) and the message to show. */
const QbSyncRetryResult = builder
  .objectRef<{ approval: ApprovalDto; message: string }>('QbSyncRetryResult')
  .implement({
    fields: (t) => ({
      approval: t.field({ type: ApprovalRef, resolve: (r) => r.approval }),
      message: t.exposeString('message'),
    }),
  });

builder.mutationField('retryQbSync', (t) =>
  t.field({
    type: QbSyncRetryResult,
    description:
      'Pays in QuickBooks the bills of a PAYMENT_COMPLETED approval not yet paid there (RetryQbSync); refused before the payment is completed, while a run is going, and once every bill is paid',
    args: { id: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) => run(() => retryQbSync(ctx.app, ctx.actor, args.id)),
  }),
);

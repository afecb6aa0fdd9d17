// The payment half's mutations staff use signed in: regenerateNacha, generatePennyTest, retryQbSync.

import { retryQbSync } from '../../../approvals/payments/retry-qb-sync.js';
import type { ApprovalDto } from '../../../approvals/rows.js';
import { builder } from '../builder.js';
import { run } from '../errors.js';
import { ApprovalRef } from './approval.js';

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

// What the payment half's mutations answer (declared in services/approvals/payments/endpoints.ts):
// the approval as it is now and the message to show.

import { builder } from '../../../gateway/graphql/builder.js';
import type { ApprovalDto } from '../../rows.js';
import { ApprovalRef } from './approval.js';

/** Regenerate's answer: the approval (NACHA_PENDING, the new version asked for) and the message to show. */
builder.objectRef<{ approval: ApprovalDto; message: string }>('NachaRegenerateResult').implement({
  fields: (t) => ({
    approval: t.field({ type: ApprovalRef, resolve: (r) => r.approval }),
    message: t.exposeString('message'),
  }),
});

/** Approve again's answer: the approval (its bankingReview as approved now) and the message to show. */
builder.objectRef<{ approval: ApprovalDto; message: string }>('BankingApprovedAgainResult').implement({
  fields: (t) => ({
    approval: t.field({ type: ApprovalRef, resolve: (r) => r.approval }),
    message: t.exposeString('message'),
  }),
});

/** What a retry answers: the approval as it is now (sync SYNCING) and the message to show. */
builder.objectRef<{ approval: ApprovalDto; message: string }>('QbSyncRetryResult').implement({
  fields: (t) => ({
    approval: t.field({ type: ApprovalRef, resolve: (r) => r.approval }),
    message: t.exposeString('message'),
  }),
});

/** Send the link again, or confirm the step in the app: the approval as it is now and what happened. */
builder.objectRef<{ approval: ApprovalDto; message: string }>('PaymentStepResult').implement({
  fields: (t) => ({
    approval: t.field({ type: ApprovalRef, resolve: (r) => r.approval }),
    message: t.exposeString('message'),
  }),
});

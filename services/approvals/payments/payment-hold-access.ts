// The kernel's port to the payments held (services/app/payment-holds.ts) as the approvals module
// keeps it: counted on its read model by the same conditions as the list's problem filter.
import { sql } from 'kysely';
import { paymentHeldWhere, paymentProblemWhere } from '../../../projections/approvals/payment-problems.js';
import type { AppServices } from '../../app/context.js';
import type { PaymentHoldAccess } from '../../app/payment-holds.js';

export function approvalsPaymentHolds(app: () => AppServices): PaymentHoldAccess {
  return {
    async counts() {
      const r = await app()
        .db.selectFrom('approvals as a')
        .select([
          sql<string>`count(*) FILTER (WHERE ${paymentProblemWhere('any', 'a')})`.as('attention'),
          sql<string>`count(*) FILTER (WHERE ${paymentProblemWhere('waiting', 'a')})`.as('waiting'),
        ])
        .where(sql<boolean>`NOT a.deleted`)
        .where(paymentHeldWhere('a'))
        .executeTakeFirstOrThrow();
      return { attention: Number(r.attention), waiting: Number(r.waiting) };
    },
  };
}

// What one approved bill may be paid, by the NACHA file and by the QuickBooks BillPayment alike: its
// open balance in QuickBooks now, never more than the balance approved (the approval's snapshot). A
// balance raised in QuickBooks since was never approved; a balance that is not a number, or below
// zero, is no sum anyone approved either, so that bill is not paid and says why.

export const NO_VALID_BALANCE = 'QuickBooks gave no valid balance';

export type PayableAmount = { cents: number } | { invalid: string };

/** A balance as QuickBooks may send it (a number, or a numeric string), or null when it is none. */
function dollars(value: unknown): number | null {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== ''
        ? Number(value)
        : Number.NaN;
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/**
 * The cents to pay for a bill: min(its balance in QuickBooks now, its approved balance); 0 means
 * nothing is open any more. `invalid` names why nothing may be paid.
 */
export function payableAmount(current: unknown, approved: unknown): PayableAmount {
  const now = dollars(current);
  if (now === null) return { invalid: NO_VALID_BALANCE };
  const cap = dollars(approved);
  if (cap === null) return { invalid: 'The approved balance is not a valid amount' };
  return { cents: Math.round(Math.min(now, cap) * 100) };
}

// The clock payment dates are judged on: the approver's chosen date is checked and the payments
// module's file is dated on it, so a test sets one instant for both instead of waiting for a time of day.
export const paymentClock = { now: (): Date => new Date() };

// The clock payment dates and e-mail links are judged on: the approver's chosen date is checked and the
// payments module's file is dated on it, and a payment link's expiry is set and checked on it, so a
// test sets one instant (a banking day's morning, a week later) instead of waiting for it to come.
export const paymentClock = { now: (): Date => new Date() };

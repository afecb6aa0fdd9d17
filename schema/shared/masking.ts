// How much of a bank number is shown: the rule the read models (a kept tail) and the answers (the
// mask) share, for vendors' and bills' numbers alike.
/** Letters and digits a masked number keeps hidden, at the least: 10,000 guesses for the rest. */
export const HIDDEN_AT_LEAST = 4;
const significant = (v: string) => v.replace(/[^0-9A-Za-z]/g, '').length;
/**
 * What the read model and the screens show of a bank number: its last four characters, fewer when
 * that would leave less than HIDDEN_AT_LEAST letters or digits hidden (a 5-digit account shows one),
 * so a masked number never gives the whole number away.
 */
export function shownTail(v: string): string {
  let shown = Math.min(4, v.length);
  while (shown > 0 && significant(v.slice(0, v.length - shown)) < HIDDEN_AT_LEAST) shown--;
  return v.slice(v.length - shown);
}

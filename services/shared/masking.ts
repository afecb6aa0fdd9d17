// A masked bank number in an answer (vendors' and bills').
import { HIDDEN_AT_LEAST } from '../../schema/shared/masking.js';

/**
 * A masked number: the tail the read model keeps (shownTail: never the whole number) after stars, at
 * least HIDDEN_AT_LEAST of them so the mask never reads as a whole short number.
 */
export const maskTail = (tail: string | null, length = 9) =>
  tail === null ? null : `${'*'.repeat(Math.max(HIDDEN_AT_LEAST, length - tail.length))}${tail}`;

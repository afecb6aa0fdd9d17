// QuickBooks answers are input like a form: text is cleaned and amounts are checked
// before anything from QuickBooks enters an event or an answer. A NUL byte or a lone surrogate in a
// document number once made the approvals projection park an approval that was still approvable,
// and 9e15 overflowed its numeric column; a right-to-left override showed "INV-\u202Egpj.exe" as
// "INV-exe.jpg". Text keeps what a person can read; an amount Billflow could not pay refuses the bill.

const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** C0 and C1 controls (tabs and line breaks among them: they become spaces first). */
const CONTROLS = /\p{Cc}/gu;
const LINE_BREAKS_AND_TABS = /[\t\n\r\v\f\u0085\u2028\u2029]+/g;
/** Embeddings, overrides and isolates (LRE…RLO, LRI…PDI) and the marks LRM, RLM, ALM. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;
/** Whitespace and format characters (zero-width space, BOM, soft hyphen…) at either end. */
const EDGES = /^[\s\p{Cf}]+|[\s\p{Cf}]+$/gu;

/** The largest amount one ACH entry carries: ten digits of cents (NACHA entry detail, field 6). */
export const ACH_MAX_AMOUNT = 99_999_999.99;

/**
 * A readable string of at most `max` characters, or null when nothing readable is left. Lone
 * surrogates become U+FFFD, line breaks and tabs a space; other controls and direction overrides go.
 */
export function cleanQbText(v: unknown, max: number): string | null {
  if (typeof v !== 'string') return null;
  // Long answers are cut before the work (a cleaned value is never longer than its source).
  let s = v.length > max * 4 ? v.slice(0, max * 4) : v;
  s = s
    .replace(LONE_SURROGATES, '\uFFFD')
    .replace(LINE_BREAKS_AND_TABS, ' ')
    .replace(CONTROLS, '')
    .replace(BIDI_CONTROLS, '')
    .normalize('NFC')
    .replace(EDGES, '');
  if (s.length > max) {
    s = s.slice(0, max);
    // Never end on half of a surrogate pair.
    if (/[\uD800-\uDBFF]$/.test(s)) s = s.slice(0, -1);
    s = s.replace(EDGES, '');
  }
  return s.length > 0 ? s : null;
}

/**
 * An amount Billflow can pay: a finite number of dollars and cents, not negative, within one ACH
 * entry. Null (with the reason) otherwise. QuickBooks answers numbers; a numeric string is accepted.
 */
export function achAmount(v: unknown): { ok: true; amount: number } | { ok: false; reason: string } {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) return { ok: false, reason: 'its amount is not a number' };
  if (n < 0) return { ok: false, reason: 'its amount is negative' };
  if (n > ACH_MAX_AMOUNT)
    return { ok: false, reason: 'its amount is above $99,999,999.99, the most one ACH payment carries' };
  const cents = Math.round(n * 100);
  if (Math.abs(n * 100 - cents) > 1e-6) return { ok: false, reason: 'its amount has more than two decimals' };
  return { ok: true, amount: cents / 100 };
}

/** A QuickBooks entity id as Intuit issues them (digits in practice), or null. */
export function cleanQbId(v: unknown): string | null {
  return typeof v === 'string' && /^[0-9A-Za-z-]{1,40}$/.test(v) ? v : null;
}

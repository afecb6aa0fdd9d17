// Rules for text people type, shared by every command input (REST and GraphQL alike). A name shows
// in other people's screens and in the activity feed: it must not carry control characters, text-
// direction overrides (which can make a line read as a different sentence) or unpaired surrogates
// (which Postgres and JSON refuse, once answered 500). Every string has a maximum length.
import { createRequire } from 'node:module';
import { z } from 'zod';

const CONTROL = /\p{Cc}/u;
/** Embeddings, overrides and isolates (LRE…RLO, LRI…PDI). */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const wellFormed = (v: string) => !LONE_SURROGATE.test(v);

// Format characters (Cf: zero-width space, ZWNJ/ZWJ, BOM, soft hyphen, word joiner, direction
// marks) show nothing: at the edges of a value they only make it differ from the same text without
// them (a name that passes a uniqueness check, a reason that is "not blank" yet reads as nothing).
const INVISIBLE = /^[\s\p{Cf}]$/u;
const LEADING_INVISIBLE = /^[\s\p{Cf}]+/u;
const PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;
const TAG_SPEC = (cp: number) => cp >= 0xe0020 && cp <= 0xe007e;
const CANCEL_TAG = 0xe007f;
/** Nothing a reader would see: whitespace, format characters and other default-ignorables. */
const NOTHING_VISIBLE = /^[\s\p{Cf}\p{Default_Ignorable_Code_Point}]*$/u;

/** The code point that ends at `end` (a surrogate pair counts as one), and where it starts. */
function codePointBefore(v: string, end: number): [number, number] {
  const low = v.charCodeAt(end - 1);
  if (end >= 2 && low >= 0xdc00 && low <= 0xdfff) {
    const high = v.charCodeAt(end - 2);
    if (high >= 0xd800 && high <= 0xdbff) return [v.codePointAt(end - 2) as number, end - 2];
  }
  return [low, end - 1];
}

/** Whether an emoji tag sequence (a flag such as England's: black flag, tags, cancel tag) ends at `end`. */
function tagSequenceEnds(v: string, end: number): boolean {
  let [cp, at] = codePointBefore(v, end);
  if (cp !== CANCEL_TAG) return false;
  let tags = 0;
  while (at > 0) {
    [cp, at] = codePointBefore(v, at);
    if (!TAG_SPEC(cp)) return tags > 0 && PICTOGRAPHIC.test(String.fromCodePoint(cp));
    tags++;
  }
  return false;
}

/**
 * Whitespace and format characters trimmed at both edges (inner ones stay: ZWJ joins emoji); a value
 * with nothing visible in it is blank (''). At the end an emoji tag sequence is kept whole; tag
 * characters after anything else are hidden text and go too. A loop, not a `…+$` regex, which
 * backtracks quadratically over a long inner run of spaces.
 */
export function trimInvisible(v: string): string {
  const start = v.match(LEADING_INVISIBLE)?.[0].length ?? 0;
  let end = v.length;
  while (end > start) {
    const [cp, at] = codePointBefore(v, end);
    if (!INVISIBLE.test(String.fromCodePoint(cp)) || (cp === CANCEL_TAG && tagSequenceEnds(v, end))) break;
    end = at;
  }
  const trimmed = v.slice(start, end);
  return NOTHING_VISIBLE.test(trimmed) ? '' : trimmed;
}

/**
 * Trimmed (of whitespace and format characters: see trimInvisible), NFC-normalised, at most `max`
 * characters, none of the characters above; nothing visible reads as ''. `missing`: the message when
 * the value is absent or not a string (zod's own otherwise).
 */
export function plainText(max: number, missing?: string) {
  return z
    .string(missing ? { error: missing } : undefined)
    .max(max * 4, `Must be at most ${max} characters`)
    .refine(wellFormed, 'Contains an invalid character')
    .transform((v) => trimInvisible(v.normalize('NFC')))
    .refine((v) => v.length <= max, `Must be at most ${max} characters`)
    .refine((v) => !CONTROL.test(v), 'Must not contain control characters')
    .refine((v) => !BIDI_CONTROL.test(v), 'Must not contain text-direction control characters');
}

/** A secret a person types: any characters but NUL and unpaired surrogates, at most 200. */
export function secretText(min: number, tooShort: string) {
  return z
    .string()
    .min(min, tooShort)
    .max(200, 'Must be at most 200 characters')
    .refine((v) => wellFormed(v) && !v.includes('\u0000'), 'Contains an invalid character');
}

// Mozilla's list of the most common passwords (Firefox Accounts), checked as typed and lower-cased.
const commonPasswords = createRequire(import.meta.url)('fxa-common-password-list') as {
  test(p: string): boolean;
};
/**
 * Mozilla's list starts at 8 characters (its own minimum); the admin dialog's minimum is 6, so the
 * commonest shorter ones (the head of the NCSC's top-100,000 list) are added here.
 */
const SHORT_COMMON = new Set(
  (
    '123456 1234567 654321 111111 000000 123123 112233 121212 123321 666666 696969 777777 7777777 ' +
    '555555 888888 999999 222222 333333 444444 abc123 qwerty qwert1 azerty qwertz asdfgh zxcvbn ' +
    'qazwsx 1q2w3e 123qwe qwe123 a12345 aaaaaa abcdef abcabc monkey dragon master shadow letmein ' +
    'secret hello1 admin1 admin12 login1 access pepper summer winter spring autumn flower ' +
    'soccer hockey killer hunter buster ranger harley george andrew daniel joshua thomas jordan ' +
    'jessica ashley maggie charlie donald michael superman batman loveme iloveu lovely ' +
    'princess sunshine welcome freedom whatever trustno1 passw0rd password 1password p@ssw0rd'
  ).split(' '),
);

export const isCommonPassword = (p: string) => {
  const lower = p.toLowerCase();
  return SHORT_COMMON.has(lower) || commonPasswords.test(p) || commonPasswords.test(lower);
};

/** A new password: the length rule of its screen, and not one of the most common passwords. */
export function newPassword(min: number, tooShort: string) {
  return secretText(min, tooShort).refine(
    (p) => !isCommonPassword(p),
    'This password is too common. Please choose a less predictable one.',
  );
}

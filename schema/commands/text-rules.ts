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

/**
 * Trimmed, NFC-normalised, at most `max` characters, none of the characters above. `missing`: the
 * message when the value is absent or not a string (zod's own otherwise).
 */
export function plainText(max: number, missing?: string) {
  return z
    .string(missing ? { error: missing } : undefined)
    .max(max * 4, `Must be at most ${max} characters`)
    .refine(wellFormed, 'Contains an invalid character')
    .transform((v) => v.trim().normalize('NFC'))
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

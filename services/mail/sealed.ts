// A queued mail's personal part, sealed. The recipient's address (and name) is personal data, and
// the template data may hold a one-time action link that confirms a payment step: neither may sit in
// Redis as plain text. Both are sealed together with the recipient's subject key (AES-256-GCM, the
// mail's key as additional data, as events seal theirs: services/privacy/personal-data.ts). The job
// holds the subject's name and the ciphertext; the worker opens it when it sends. Forgetting the
// subject deletes its key: a mail still queued for a forgotten person can no longer be opened and
// is dropped, never sent.
import type { Sealed } from '../privacy/personal-data.js';
import { openData, sealData } from '../privacy/personal-data.js';
import { ForgottenSubjectError, type SubjectKeys } from '../privacy/subject-keys.js';

export interface MailRecipient {
  address: string;
  /** Shown in the To header beside the address. */
  name?: string | null;
}

/** What is sealed: who the mail goes to, and the template's data. */
export interface MailPersonalPart {
  to: MailRecipient;
  data: unknown;
}

const FIELDS = ['to', 'data'] as const;
/** Binds the ciphertext to its mail: a sealed part moved onto another mail's job does not open. */
const aadId = (key: string) => `mail:${key}`;

/** Seals with the subject's key (created if the subject has none; throws ForgottenSubjectError). */
export async function sealMailPart(
  keys: SubjectKeys,
  key: string,
  subject: string,
  part: MailPersonalPart,
): Promise<Sealed> {
  const sealed = sealData(
    aadId(key),
    { ...part },
    { subject: () => subject, fields: FIELDS },
    subject,
    await subjectKey(keys, subject),
    // No event holds it: nothing to check an opened copy against, so no commitments.
    { commit: false },
  );
  return sealed.pii as Sealed;
}

/**
 * getOrCreate, but sure of a refusal: two first uses of a subject at once can see it refused for
 * the one whose insert lost (its statement's snapshot predates the winner's row). Asked again, a
 * key that exists now is used; a forgotten subject stays refused.
 */
async function subjectKey(keys: SubjectKeys, subject: string): Promise<Buffer> {
  try {
    return await keys.getOrCreate(subject);
  } catch (err) {
    if (!(err instanceof ForgottenSubjectError)) throw err;
    keys.drop(subject);
    const key = await keys.get(subject);
    if (!key) throw err;
    return key;
  }
}

/** The personal part again; null once the subject was forgotten (its key is gone). */
export async function openMailPart(
  keys: SubjectKeys,
  key: string,
  sealed: Sealed,
): Promise<MailPersonalPart | null> {
  const { data, erased } = openData(aadId(key), { pii: sealed }, await keys.get(sealed.k));
  if (erased) return null;
  return { to: data.to as MailRecipient, data: data.data };
}

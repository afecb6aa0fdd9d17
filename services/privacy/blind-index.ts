// The e-mail blind index: find a user by address without keeping the address in plain (subject keys
// hold its key; the personal-data store and the read models use it).
import { createHmac, hkdfSync } from 'node:crypto';

/**
 * Blind index of an e-mail address: a keyed hash of its normalised form (trimmed, NFC, lower-cased),
 * so a stream id or a lookup key can stand for the address without holding it.
 *
 * Its key must never change: the e-mail claim streams in the immutable log are named by it. It is
 * derived from the ENCRYPTION_KEY the database was first written with; once that key is rotated,
 * the database keeps it wrapped by the new one (SubjectKeys.blindIndexKey, key-rotation.ts).
 */
export class BlindIndex {
  constructor(private readonly key: Buffer) {}

  /** The key as derived from an ENCRYPTION_KEY (the database's first). */
  static keyFrom(encryptionKey: string): Buffer {
    const ikm = Buffer.from(encryptionKey, 'base64');
    return Buffer.from(hkdfSync('sha256', ikm, 'billflow', 'blind-index: e-mail', 32));
  }

  email(address: string): string {
    const normal = address.trim().normalize('NFC').toLowerCase();
    return createHmac('sha256', this.key).update(normal).digest('base64url');
  }
}

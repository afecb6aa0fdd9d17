// Per-subject data keys for crypto-shredding (shared/reference/privacy-and-tamper-evidence.md).
// Each subject (a user now; vendors and companies next) has its own random 32-byte key, stored in
// `subject_keys` outside the event log, wrapped by a key derived from ENCRYPTION_KEY. Forgetting a
// subject deletes its wrapped key: its personal fields in the log can never be read again, while
// every event still loads (services/privacy/personal-data.ts).
//
// `key_material` holds the product's own keys that must outlive a change of ENCRYPTION_KEY (the
// blind index of e-mail addresses), wrapped the same way. Changing ENCRYPTION_KEY re-wraps both
// tables and rewrites no event (key-rotation.ts).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import { BlindIndex } from './blind-index.js';
import { SealedOpener } from './open-worker.js';

/** The key-encryption key an ENCRYPTION_KEY (32 bytes, base64) stands for. */
export function deriveKek(encryptionKey: string): Buffer {
  const ikm = Buffer.from(encryptionKey, 'base64');
  return Buffer.from(hkdfSync('sha256', ikm, 'billflow', 'subject-keys: key wrapping', 32));
}

/** AES-256-GCM under the KEK, `aad` naming what the key belongs to: iv ‖ ciphertext ‖ tag. */
export function wrapKey(kek: Buffer, aad: string, key: Buffer): Buffer {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', kek, iv);
  c.setAAD(Buffer.from(aad));
  return Buffer.concat([iv, c.update(key), c.final(), c.getAuthTag()]);
}

/** Throws when the KEK is not the one `wrapped` was made with (or it was moved to another name). */
export function unwrapKey(kek: Buffer, aad: string, wrapped: Buffer): Buffer {
  const d = createDecipheriv('aes-256-gcm', kek, wrapped.subarray(0, 12));
  d.setAAD(Buffer.from(aad));
  d.setAuthTag(wrapped.subarray(wrapped.length - 16));
  return Buffer.concat([d.update(wrapped.subarray(12, wrapped.length - 16)), d.final()]);
}

/** The additional authenticated data of a `key_material` row. */
export const materialAad = (name: string) => `key-material:${name}`;

/** A subject's key is gone: it was forgotten, or it never had one. */
export type SubjectKey = Buffer | null;

export class ForgottenSubjectError extends Error {
  constructor(public readonly subject: string) {
    super('The subject was forgotten: no personal data can be stored for it');
    this.name = 'ForgottenSubjectError';
  }
}

/** ENCRYPTION_KEY is not the key this database's subject keys were wrapped with. */
export class EncryptionKeyMismatchError extends Error {
  constructor() {
    super(
      'ENCRYPTION_KEY is not the key this database was written with: its subject keys do not unwrap, so no personal field and no sign-in address could be read. Start with the key it was written with, or the one `npm run rotate-key` moved it to (locally: .local/secrets.json, kept beside .local/pg), or on an empty database. To change the key, see "Changing ENCRYPTION_KEY" in docs/OPERATIONS.md.',
    );
    this.name = 'EncryptionKeyMismatchError';
  }
}

export class SubjectKeys {
  private readonly kek: Buffer;
  /** The ENCRYPTION_KEY itself: a database never rotated derives its blind index from it. */
  private readonly encryptionKey: string;
  /**
   * Unwrapped keys, kept briefly: another process that forgets a subject deletes the row, and this
   * copy lives at most `ttl` longer (projections erase the read models on the forget event itself,
   * whatever a cache holds). Never logged.
   */
  private readonly cache: LRUCache<string, { key: SubjectKey }>;
  private sealedOpener: SealedOpener | undefined;
  private blindKey: Promise<Buffer> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    encryptionKey: string,
    options: { cacheSize?: number; ttlMs?: number } = {},
  ) {
    this.encryptionKey = encryptionKey;
    this.kek = deriveKek(encryptionKey);
    this.cache = new LRUCache({ max: options.cacheSize ?? 10_000, ttl: options.ttlMs ?? 60_000 });
  }

  static async setup(pool: pg.Pool | pg.PoolClient) {
    await pool.query(`CREATE TABLE IF NOT EXISTS subject_keys (
      subject text PRIMARY KEY,
      wrapped bytea,
      created_at timestamptz NOT NULL DEFAULT now(),
      forgotten_at timestamptz,
      CHECK ((wrapped IS NULL) = (forgotten_at IS NOT NULL))
    )`);
    await pool.query(`CREATE TABLE IF NOT EXISTS key_material (
      name text PRIMARY KEY,
      wrapped bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  }

  /**
   * The blind index's key: kept wrapped in `key_material` once ENCRYPTION_KEY has been changed,
   * derived from ENCRYPTION_KEY before that (the key the database was first written with, as
   * assertKeyMatches has checked). Never made here: only a rotation writes the row, and only with
   * the product stopped, so a process reads it once (the start-up check, then the blind index).
   */
  blindIndexKey(): Promise<Buffer> {
    this.blindKey ??= this.readBlindIndexKey();
    // A failed read (a wrong key, Postgres away) is not kept: the next start asks again.
    this.blindKey.catch(() => {
      this.blindKey = undefined;
    });
    return this.blindKey;
  }

  private async readBlindIndexKey(): Promise<Buffer> {
    const r = await this.pool.query<{ wrapped: Buffer }>(
      "SELECT wrapped FROM key_material WHERE name = 'blind-index'",
    );
    const wrapped = r.rows[0]?.wrapped;
    if (!wrapped) return BlindIndex.keyFrom(this.encryptionKey);
    try {
      return unwrapKey(this.kek, materialAad('blind-index'), wrapped);
    } catch {
      throw new EncryptionKeyMismatchError();
    }
  }

  /**
   * Refuses a key the database was not written with, at start: otherwise the process runs and fails
   * later, obscurely (a job's "unable to authenticate data", a seed's conflict on an id it cannot
   * find by its address). Any wrapped key is a witness; a database with none has nothing
   * a wrong key could misread.
   */
  async assertKeyMatches(): Promise<void> {
    const r = await this.pool.query<{ subject: string; wrapped: Buffer }>(
      'SELECT subject, wrapped FROM subject_keys WHERE wrapped IS NOT NULL LIMIT 1',
    );
    const witness = r.rows[0];
    if (witness) {
      try {
        this.unwrap(witness.subject, witness.wrapped);
      } catch {
        throw new EncryptionKeyMismatchError();
      }
    }
    // A rotated database with no subject key left (all forgotten) still has its material.
    await this.blindIndexKey();
  }

  /** A key served from memory without a round trip, if one is there (undefined: ask `get`). */
  cached(subject: string): SubjectKey | undefined {
    return this.cache.get(subject)?.key;
  }

  /** The subject's key; null once forgotten or when it never had one. */
  async get(subject: string): Promise<SubjectKey> {
    const hit = this.cache.get(subject);
    if (hit) return hit.key;
    const r = await this.pool.query<{ wrapped: Buffer | null }>(
      'SELECT wrapped FROM subject_keys WHERE subject = $1',
      [subject],
    );
    const wrapped = r.rows[0]?.wrapped ?? null;
    const key = wrapped ? this.unwrap(subject, wrapped) : null;
    this.cache.set(subject, { key });
    return key;
  }

  /** Loads the keys of several subjects with one query (a batch of events being read). */
  async preload(subjects: Iterable<string>): Promise<void> {
    const missing = [...new Set(subjects)].filter((s) => !this.cache.has(s));
    if (missing.length === 0) return;
    const r = await this.pool.query<{ subject: string; wrapped: Buffer | null }>(
      'SELECT subject, wrapped FROM subject_keys WHERE subject = ANY($1::text[])',
      [missing],
    );
    const found = new Map(r.rows.map((row) => [row.subject, row.wrapped]));
    for (const s of missing) {
      const wrapped = found.get(s) ?? null;
      this.cache.set(s, { key: wrapped ? this.unwrap(s, wrapped) : null });
    }
  }

  /**
   * The wrapped keys of subjects not in memory, for a caller that unwraps them elsewhere (the
   * opening worker): null for a forgotten subject or one that never had a key.
   */
  async wrappedOf(subjects: Iterable<string>): Promise<Map<string, Buffer | null>> {
    const missing = [...new Set(subjects)].filter((s) => !this.cache.has(s));
    const out = new Map<string, Buffer | null>();
    if (missing.length === 0) return out;
    const r = await this.pool.query<{ subject: string; wrapped: Buffer | null }>(
      'SELECT subject, wrapped FROM subject_keys WHERE subject = ANY($1::text[])',
      [missing],
    );
    for (const s of missing) out.set(s, null);
    for (const row of r.rows) out.set(row.subject, row.wrapped);
    return out;
  }

  /** Keeps a key unwrapped elsewhere (or null: none) as `get` would have. */
  remember(subject: string, key: SubjectKey) {
    this.cache.set(subject, { key });
  }

  /** Unwraps one key here: what the worker does, for the rare key it could not unwrap. */
  unwrapHere(subject: string, wrapped: Buffer): Buffer {
    return this.unwrap(subject, wrapped);
  }

  /** The worker that opens large batches, started on first use (services/privacy/open-worker.ts). */
  opener(): SealedOpener {
    this.sealedOpener ??= new SealedOpener(this.kek);
    return this.sealedOpener;
  }

  async close() {
    await this.sealedOpener?.close();
    this.sealedOpener = undefined;
  }

  /** The subject's key, made on first use. Refused for a forgotten subject. */
  async getOrCreate(subject: string): Promise<Buffer> {
    const known = this.cache.get(subject)?.key;
    if (known) return known;
    const fresh = randomBytes(32);
    // Whoever inserts first wins; everyone then uses the stored key.
    const r = await this.pool.query<{ wrapped: Buffer | null }>(
      `WITH ins AS (
         INSERT INTO subject_keys (subject, wrapped) VALUES ($1, $2)
         ON CONFLICT (subject) DO NOTHING RETURNING wrapped
       )
       SELECT wrapped FROM ins UNION ALL SELECT wrapped FROM subject_keys WHERE subject = $1 LIMIT 1`,
      [subject, this.wrap(subject, fresh)],
    );
    let row = r.rows[0];
    if (!row) {
      // Another first use inserted meanwhile: this statement waited for it, but its snapshot predates
      // the winner's commit, so it saw no row. A new statement sees the winner's key.
      const again = await this.pool.query<{ wrapped: Buffer | null }>(
        'SELECT wrapped FROM subject_keys WHERE subject = $1',
        [subject],
      );
      row = again.rows[0];
      if (!row) throw new Error(`No key could be made for ${subject}`);
    }
    if (!row.wrapped) throw new ForgottenSubjectError(subject);
    const key = this.unwrap(subject, row.wrapped);
    this.cache.set(subject, { key });
    return key;
  }

  /** Deletes the subject's key for good (the row stays, saying when, so no new key is ever made). */
  async forget(subject: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO subject_keys (subject, wrapped, forgotten_at) VALUES ($1, NULL, now())
       ON CONFLICT (subject) DO UPDATE SET wrapped = NULL,
         forgotten_at = COALESCE(subject_keys.forgotten_at, now())`,
      [subject],
    );
    this.cache.set(subject, { key: null });
  }

  /** Drops a remembered key (another process forgot the subject). */
  drop(subject: string) {
    this.cache.delete(subject);
  }

  private wrap(subject: string, key: Buffer): Buffer {
    return wrapKey(this.kek, subject, key);
  }

  private unwrap(subject: string, wrapped: Buffer): Buffer {
    return unwrapKey(this.kek, subject, wrapped);
  }
}

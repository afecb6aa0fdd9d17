// Changing ENCRYPTION_KEY (docs/OPERATIONS.md, "Changing ENCRYPTION_KEY"). The key wraps every
// subject's data key and the product's own key material; the log's personal fields are sealed with
// the data keys, so a rotation re-wraps those rows and rewrites no event (the hash chain stays as
// it is). The blind index keeps its key, since the e-mail claim streams in the log are named by it:
// a database rotated for the first time keeps the key derived from its first ENCRYPTION_KEY, now
// wrapped by the new one.
//
// Offline and all at once: the product must be stopped (no other connection to the database), and
// one transaction re-wraps everything. A crash leaves the database wholly under the old key or
// wholly under the new one, and running it again either finishes or finds nothing to do.
import type pg from 'pg';
import { otherConnections } from '../shared/db.js';
import { BlindIndex } from './personal-data.js';
import { deriveKek, materialAad, SubjectKeys, unwrapKey, wrapKey } from './subject-keys.js';

export class RotationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RotationRefused';
  }
}

export interface RotationResult {
  /** The database was already under the new key: nothing changed. */
  alreadyDone: boolean;
  /** Subject keys re-wrapped. */
  subjectKeys: number;
  /** Forgotten subjects: no key to re-wrap. */
  forgotten: number;
  /** `key_material` rows re-wrapped or, for the blind index's first rotation, written. */
  material: number;
  /** Remembered Idempotency-Key answers dropped (sealed under the old key: a retry runs again). */
  idempotencyAnswers: number;
}

const BATCH = 1000;

export async function rotateEncryptionKey(opts: {
  pool: pg.Pool;
  /** The key the database is written with now. */
  from: string;
  /** The key it is to be written with. */
  to: string;
  log?: (line: string) => void;
}): Promise<RotationResult> {
  const say = opts.log ?? (() => {});
  for (const [name, value] of [
    ['the current key', opts.from],
    ['the new key', opts.to],
  ] as const)
    if (Buffer.from(value, 'base64').length !== 32)
      throw new RotationRefused(`${name} must be 32 bytes encoded as base64.`);
  if (Buffer.from(opts.from, 'base64').equals(Buffer.from(opts.to, 'base64')))
    throw new RotationRefused('The new key is the current one.');
  const fromKek = deriveKek(opts.from);
  const toKek = deriveKek(opts.to);
  await SubjectKeys.setup(opts.pool);

  const client = await opts.pool.connect();
  try {
    // Running processes keep unwrapped keys in memory and wrap new ones with the old key.
    const others = await otherConnections(client);
    if (others > 0)
      throw new RotationRefused(
        `Stop Billflow first: ${others} other connection(s) to this database are open. Nothing was changed.`,
      );
    await client.query('BEGIN');
    await client.query('LOCK TABLE subject_keys, key_material IN ACCESS EXCLUSIVE MODE');

    // Which key is the database under? One wrapped row tells (GCM opens under one key only).
    const witness = await client.query<{ aad: string; wrapped: Buffer }>(
      `(SELECT 'key-material:' || name AS aad, wrapped FROM key_material ORDER BY name LIMIT 1)
       UNION ALL
       (SELECT subject AS aad, wrapped FROM subject_keys WHERE wrapped IS NOT NULL ORDER BY subject LIMIT 1)`,
    );
    const opensWith = (kek: Buffer) =>
      witness.rows.length > 0 &&
      witness.rows.every((w) => {
        try {
          unwrapKey(kek, w.aad, w.wrapped);
          return true;
        } catch {
          return false;
        }
      });
    const none = { subjectKeys: 0, forgotten: 0, material: 0, idempotencyAnswers: 0 };
    if (opensWith(toKek)) {
      await client.query('ROLLBACK');
      say('The database is already under the new key: nothing to do.');
      return { alreadyDone: true, ...none };
    }
    if (witness.rows.length > 0 && !opensWith(fromKek))
      throw new RotationRefused(
        'The current key does not open this database’s keys: give the ENCRYPTION_KEY Billflow runs with now. Nothing was changed.',
      );
    const result: RotationResult = { alreadyDone: false, ...none };

    // The product's own keys; the blind index's, at its first rotation, as the old key derived it.
    const material = await client.query<{ name: string; wrapped: Buffer }>(
      'SELECT name, wrapped FROM key_material ORDER BY name',
    );
    const rewrapped = new Map(
      material.rows.map((m) => [m.name, unwrapKey(fromKek, materialAad(m.name), m.wrapped)]),
    );
    if (!rewrapped.has('blind-index')) rewrapped.set('blind-index', BlindIndex.keyFrom(opts.from));
    for (const [name, key] of rewrapped) {
      await client.query(
        `INSERT INTO key_material (name, wrapped) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET wrapped = excluded.wrapped`,
        [name, wrapKey(toKek, materialAad(name), key)],
      );
      result.material++;
    }

    // Every subject's key, in pages (keyset: the subject's name).
    let after = '';
    for (;;) {
      const page = await client.query<{ subject: string; wrapped: Buffer }>(
        `SELECT subject, wrapped FROM subject_keys WHERE wrapped IS NOT NULL AND subject > $1
          ORDER BY subject LIMIT ${BATCH}`,
        [after],
      );
      if (page.rows.length === 0) break;
      const subjects: string[] = [];
      const wrapped: Buffer[] = [];
      for (const row of page.rows) {
        let key: Buffer;
        try {
          key = unwrapKey(fromKek, row.subject, row.wrapped);
        } catch {
          throw new RotationRefused(
            `The key of subject ${row.subject} does not open with the current key (the row was altered or copied). Nothing was changed.`,
          );
        }
        subjects.push(row.subject);
        wrapped.push(wrapKey(toKek, row.subject, key));
      }
      await client.query(
        `UPDATE subject_keys SET wrapped = v.w FROM unnest($1::text[], $2::bytea[]) AS v(s, w)
          WHERE subject_keys.subject = v.s`,
        [subjects, wrapped],
      );
      result.subjectKeys += subjects.length;
      after = subjects[subjects.length - 1];
      say(`  ${result.subjectKeys} subject keys re-wrapped`);
    }
    const forgotten = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM subject_keys WHERE wrapped IS NULL',
    );
    result.forgotten = forgotten.rows[0].n;

    // Answers kept for Idempotency-Key retries are sealed with a key derived from the old one, and
    // found by a MAC of it: a retry after the change would be refused as a different request.
    const idem = await client.query<{ t: string | null }>(
      "SELECT to_regclass('idempotency_keys')::text AS t",
    );
    if (idem.rows[0].t)
      result.idempotencyAnswers = (await client.query('DELETE FROM idempotency_keys')).rowCount ?? 0;

    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

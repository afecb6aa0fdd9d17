// Stored NACHA files (table `nacha_files`): each payment file version and penny test of an approval,
// the text encrypted with the company's data key (AES-256-GCM, the file id as additional data, so a
// ciphertext moved onto another row does not open). The file holds every vendor's account number:
// it never goes into the log or a read model, and forgetting the company (its key deleted) makes
// every stored file of it unreadable. A key rotation re-wraps the company's key and leaves the
// ciphertext as it is (services/privacy/key-rotation.ts).
//
// `summary` holds what the generation reported (counts, totals, vendors' last four digits, skipped
// bills), so a job run again for the same version reports the very same file.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { companySubject } from '../../schema/companies/events.js';
import type { AppServices } from '../app/context.js';
import type { SubjectKeys } from '../privacy/subject-keys.js';

export const NACHA_FILES_TABLE = 'nacha_files';

export type NachaFileKind = 'payment' | 'penny-test';

const ready: WeakMap<pg.Pool, Promise<void>> = new WeakMap();

/** Creates the table (idempotent; run at start by the approval module's storage hook, or on first use). */
export async function setupNachaFiles(pool: pg.Pool | pg.PoolClient) {
  try {
    await pool.query(`CREATE TABLE IF NOT EXISTS ${NACHA_FILES_TABLE} (
      file_id text PRIMARY KEY,
      approval_id text NOT NULL,
      company_id integer NOT NULL,
      kind text NOT NULL CHECK (kind IN ('payment', 'penny-test')),
      version integer NOT NULL,
      file_name text NOT NULL,
      ciphertext bytea NOT NULL,
      summary jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await pool.query(
      `CREATE INDEX IF NOT EXISTS nacha_files_approval_idx ON ${NACHA_FILES_TABLE} (approval_id)`,
    );
  } catch (err) {
    // Two first uses at once: the loser's unique violation on the catalogue means the table is there.
    if ((err as { code?: string }).code !== '23505') throw err;
  }
}

function ensureTable(pool: pg.Pool): Promise<void> {
  let p = ready.get(pool);
  if (!p) {
    p = setupNachaFiles(pool);
    p.catch(() => ready.delete(pool));
    ready.set(pool, p);
  }
  return p;
}

const aad = (fileId: string) => Buffer.from(`nacha-file:${fileId}`);

export function sealFile(key: Buffer, fileId: string, text: string): Buffer {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(aad(fileId));
  return Buffer.concat([iv, c.update(text, 'utf8'), c.final(), c.getAuthTag()]);
}

export function openFile(key: Buffer, fileId: string, sealed: Buffer): string {
  const d = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  d.setAAD(aad(fileId));
  d.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([d.update(sealed.subarray(12, sealed.length - 16)), d.final()]).toString('utf8');
}

export interface StoredNachaFile<S = unknown> {
  fileId: string;
  approvalId: string;
  companyId: number;
  kind: NachaFileKind;
  version: number;
  fileName: string;
  summary: S;
  createdAt: Date;
}

interface Row {
  file_id: string;
  approval_id: string;
  company_id: number;
  kind: NachaFileKind;
  version: number;
  file_name: string;
  ciphertext: Buffer;
  summary: unknown;
  created_at: Date;
}

const toStored = <S>(r: Row): StoredNachaFile<S> => ({
  fileId: r.file_id,
  approvalId: r.approval_id,
  companyId: r.company_id,
  kind: r.kind,
  version: r.version,
  fileName: r.file_name,
  summary: r.summary as S,
  createdAt: r.created_at,
});

/** The company's data key, made on first use (throws ForgottenSubjectError once it was forgotten). */
const companyKey = (keys: SubjectKeys, companyId: number) => keys.getOrCreate(companySubject(companyId));

/**
 * Stores a file once: a second store of the same id (a job run again) keeps the first, and the stored
 * row is what is answered, so every run reports the same file.
 */
export async function storeNachaFile<S>(
  app: Pick<AppServices, 'pool' | 'subjectKeys'>,
  file: Omit<StoredNachaFile<S>, 'createdAt'> & { text: string },
): Promise<StoredNachaFile<S>> {
  await ensureTable(app.pool);
  const key = await companyKey(app.subjectKeys, file.companyId);
  await app.pool.query(
    `INSERT INTO ${NACHA_FILES_TABLE} (file_id, approval_id, company_id, kind, version, file_name, ciphertext, summary)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (file_id) DO NOTHING`,
    [
      file.fileId,
      file.approvalId,
      file.companyId,
      file.kind,
      file.version,
      file.fileName,
      sealFile(key, file.fileId, file.text),
      JSON.stringify(file.summary),
    ],
  );
  return (await findNachaFile<S>(app, file.fileId))!;
}

/** The stored file's row without its text, or null. */
export async function findNachaFile<S = unknown>(
  app: Pick<AppServices, 'pool'>,
  fileId: string,
): Promise<StoredNachaFile<S> | null> {
  await ensureTable(app.pool);
  const r = await app.pool.query<Row>(`SELECT * FROM ${NACHA_FILES_TABLE} WHERE file_id = $1`, [fileId]);
  return r.rows[0] ? toStored<S>(r.rows[0]) : null;
}

/**
 * The file's text, decrypted with the company's key; `gone` once the company was forgotten (its key
 * deleted: the ciphertext stays and can never be read again).
 */
export async function readNachaFile(
  app: Pick<AppServices, 'pool' | 'subjectKeys'>,
  approvalId: string,
  fileId: string,
): Promise<{ file: StoredNachaFile; text: string } | { file: StoredNachaFile; gone: true } | null> {
  await ensureTable(app.pool);
  const r = await app.pool.query<Row>(
    `SELECT * FROM ${NACHA_FILES_TABLE} WHERE file_id = $1 AND approval_id = $2`,
    [fileId, approvalId],
  );
  const row = r.rows[0];
  if (!row) return null;
  const key = await app.subjectKeys.get(companySubject(row.company_id));
  if (!key) return { file: toStored(row), gone: true };
  return { file: toStored(row), text: openFile(key, row.file_id, row.ciphertext) };
}

/**
 * Many files' texts in one read (a cut-off window's batches), each decrypted with its company's key:
 * by file id, each `gone` once its company was forgotten; a file not found, or another owner's, is absent.
 */
export async function readNachaFiles(
  app: Pick<AppServices, 'pool' | 'subjectKeys'>,
  wanted: ReadonlyArray<{ ownerId: string; fileId: string }>,
): Promise<Map<string, { file: StoredNachaFile; text: string } | { file: StoredNachaFile; gone: true }>> {
  const out = new Map<
    string,
    { file: StoredNachaFile; text: string } | { file: StoredNachaFile; gone: true }
  >();
  if (wanted.length === 0) return out;
  await ensureTable(app.pool);
  const owners = new Map(wanted.map((w) => [w.fileId, w.ownerId]));
  const r = await app.pool.query<Row>(`SELECT * FROM ${NACHA_FILES_TABLE} WHERE file_id = ANY($1::text[])`, [
    [...owners.keys()],
  ]);
  const keys = new Map<number, Buffer | null>();
  for (const row of r.rows) {
    if (owners.get(row.file_id) !== row.approval_id) continue;
    if (!keys.has(row.company_id))
      keys.set(row.company_id, await app.subjectKeys.get(companySubject(row.company_id)));
    const key = keys.get(row.company_id);
    out.set(
      row.file_id,
      key
        ? { file: toStored(row), text: openFile(key, row.file_id, row.ciphertext) }
        : { file: toStored(row), gone: true },
    );
  }
  return out;
}

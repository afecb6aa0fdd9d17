// Stored NACHA files and the company's key: a file opens with the company's key
// only, bound to its own id; `npm run rotate-key` re-wraps the subject keys and leaves the ciphertext,
// so every stored file still opens under the new ENCRYPTION_KEY; forgetting the company deletes its
// key and its files can never be read again.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/db.js';
import { rotateEncryptionKey } from '../privacy/key-rotation.js';
import { SubjectKeys } from '../privacy/subject-keys.js';
import { createPool } from '../shared/db.js';
import {
  NACHA_FILES_TABLE,
  openFile,
  readNachaFile,
  readNachaFiles,
  sealFile,
  storeNachaFile,
} from './nacha-files.js';

const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');
const TEXT = `101 021000021 1123456789${'x'.repeat(70)}\n`;
const approvalId = '11111111-1111-4111-8111-111111111111';
const fileId = '22222222-2222-4222-8222-222222222222';
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase('nachafiles', 1);
  await db.pool.end();
});
afterAll(async () => {
  await db?.drop();
});

async function withApp<T>(key: string, work: (app: { pool: any; subjectKeys: SubjectKeys }) => Promise<T>) {
  const pool = createPool({ connectionString: db.url, max: 1 });
  const subjectKeys = new SubjectKeys(pool, key);
  try {
    await SubjectKeys.setup(pool);
    return await work({ pool, subjectKeys });
  } finally {
    await subjectKeys.close();
    await pool.end();
  }
}

describe('stored NACHA files', () => {
  it('are sealed with the company key, bound to their id, readable after a key rotation', async () => {
    await withApp(keyA, async (app) => {
      const stored = await storeNachaFile(app, {
        fileId,
        approvalId,
        companyId: 7,
        kind: 'payment',
        version: 1,
        fileName: 'ACH_20260102_A_X.txt',
        summary: { entryCount: 1 },
        text: TEXT,
      });
      expect(stored).toMatchObject({ fileId, version: 1, summary: { entryCount: 1 } });
      // Stored again (a job run twice): the first stays.
      await storeNachaFile(app, { ...stored, summary: { entryCount: 9 }, text: 'other' });
      const row = (await app.pool.query(`SELECT * FROM ${NACHA_FILES_TABLE}`)).rows;
      expect(row).toHaveLength(1);
      expect(row[0].summary).toEqual({ entryCount: 1 });
      expect(row[0].ciphertext.toString('latin1')).not.toContain('021000021');
      expect(await readNachaFile(app, approvalId, fileId)).toMatchObject({ text: TEXT });
      // Not through another approval; the ciphertext does not open as another file.
      expect(await readNachaFile(app, '33333333-3333-4333-8333-333333333333', fileId)).toBeNull();
      const key = (await app.subjectKeys.get('company-7'))!;
      expect(() => openFile(key, 'another-file', row[0].ciphertext)).toThrow();
      expect(openFile(key, 'f', sealFile(key, 'f', 'abc'))).toBe('abc');
    });
    const pool = createPool({ connectionString: db.url, max: 1 });
    try {
      const r = await rotateEncryptionKey({ pool, from: keyA, to: keyB });
      expect(r.subjectKeys).toBeGreaterThanOrEqual(1);
    } finally {
      await pool.end();
    }
    await withApp(keyB, async (app) => {
      expect(await readNachaFile(app, approvalId, fileId)).toMatchObject({ text: TEXT });
    });
  });

  it('are read many at once, each with its company key, only through their own owner', async () => {
    const other = {
      approvalId: '55555555-5555-4555-8555-555555555555',
      fileId: '66666666-6666-4666-8666-666666666666',
    };
    await withApp(keyB, async (app) => {
      await storeNachaFile(app, {
        ...other,
        companyId: 8,
        kind: 'payment',
        version: 1,
        fileName: 'ACH_20260102_B_Y.txt',
        summary: {},
        text: `${TEXT}8`,
      });
      const both = await readNachaFiles(app, [
        { ownerId: approvalId, fileId },
        { ownerId: other.approvalId, fileId: other.fileId },
      ]);
      expect(both.get(fileId)).toMatchObject({ text: TEXT });
      expect(both.get(other.fileId)).toMatchObject({ text: `${TEXT}8` });
      const wrongOwner = await readNachaFiles(app, [{ ownerId: other.approvalId, fileId }]);
      expect(wrongOwner.size).toBe(0);
    });
  });

  it('cannot be read once the company is forgotten', async () => {
    await withApp(keyB, async (app) => {
      await app.subjectKeys.forget('company-7');
      const r = await readNachaFile(app, approvalId, fileId);
      expect(r).toMatchObject({ gone: true });
      expect(r).not.toHaveProperty('text');
      expect((await readNachaFiles(app, [{ ownerId: approvalId, fileId }])).get(fileId)).toMatchObject({
        gone: true,
      });
      // Nothing new is sealed for a forgotten company.
      await expect(
        storeNachaFile(app, {
          fileId: '44444444-4444-4444-8444-444444444444',
          approvalId,
          companyId: 7,
          kind: 'penny-test',
          version: 0,
          fileName: 'x.txt',
          summary: {},
          text: TEXT,
        }),
      ).rejects.toThrow(/forgotten/);
    });
  });
});

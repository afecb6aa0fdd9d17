// Secrets generated once per checkout for `npm start` and kept in .local/secrets.json (mode 0600,
// never committed), unless set in the environment. The tools that read the log (rebuild, migrate)
// take ENCRYPTION_KEY from the same place; `npm run rotate-key` changes it there.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './local-services.js';

export const SECRETS_FILE = path.join(ROOT, '.local', 'secrets.json');

export type Secrets = {
  JWT_SECRET: string;
  ENCRYPTION_KEY: string;
  ADMIN_PASSWORD: string;
  /** Only while `npm run rotate-key` changes ENCRYPTION_KEY: the key it moves the database to. */
  ENCRYPTION_KEY_NEXT?: string;
};

export function readSecrets(file = SECRETS_FILE): Partial<Secrets> {
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
}

/** Replaces the file whole (a rename), so a crash leaves the old file or the new one, never half. */
export function saveSecrets(secrets: Partial<Secrets>, file = SECRETS_FILE) {
  mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  renameSync(partial, file);
}

/** The saved secrets, made (and saved) the first time. */
export function localSecrets(): Secrets {
  const known = readSecrets();
  const secrets: Secrets = {
    ...known,
    JWT_SECRET: known.JWT_SECRET ?? randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: known.ENCRYPTION_KEY ?? randomBytes(32).toString('base64'),
    ADMIN_PASSWORD: known.ADMIN_PASSWORD ?? randomBytes(9).toString('base64url'),
  };
  saveSecrets(secrets);
  return secrets;
}

/** One saved secret, if this checkout has one (never made here). */
export function localSecret(name: keyof Secrets): string | undefined {
  return readSecrets()[name];
}

// Secrets generated once per checkout for `npm start` and kept in .local/secrets.json (mode 0600,
// never committed), unless set in the environment. The tools that read the log (rebuild, migrate)
// take ENCRYPTION_KEY from the same place.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './local-services.js';

const SECRETS = path.join(ROOT, '.local', 'secrets.json');

type Secrets = { JWT_SECRET: string; ENCRYPTION_KEY: string; ADMIN_PASSWORD: string };

function saved(): Partial<Secrets> {
  return existsSync(SECRETS) ? JSON.parse(readFileSync(SECRETS, 'utf8')) : {};
}

/** The saved secrets, made (and saved) the first time. */
export function localSecrets(): Secrets {
  mkdirSync(path.dirname(SECRETS), { recursive: true });
  const known = saved();
  const secrets = {
    JWT_SECRET: known.JWT_SECRET ?? randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: known.ENCRYPTION_KEY ?? randomBytes(32).toString('base64'),
    ADMIN_PASSWORD: known.ADMIN_PASSWORD ?? randomBytes(9).toString('base64url'),
  };
  writeFileSync(SECRETS, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}

/** One saved secret, if this checkout has one (never made here). */
export function localSecret(name: keyof Secrets): string | undefined {
  return saved()[name];
}

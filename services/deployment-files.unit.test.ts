// The deployment files cannot drift from the code: docker-compose.yml's environment must load for
// every role it runs, and .env.example must list every setting with its real default. (No Docker
// engine runs here, so this is what can be checked without one.)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configSchema, loadConfig } from './shared/config.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** docker compose's `${VAR:-default}` and `${VAR:?message}` with the operator's variables. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, op?: string, rest?: string) => {
    if (vars[name]) return vars[name];
    if (op === '?') throw new Error(`compose requires ${name}: ${rest}`);
    return op === '-' ? (rest ?? '') : '';
  });
}

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
  const operator = {
    JWT_SECRET: 'x'.repeat(40),
    ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    ADMIN_PASSWORD: 'compose-admin-pass',
  };

  it('runs each role once, as the design names them, on the same image', () => {
    const roles = ['gateway', 'projector', 'worker'].map((s) => compose.services[s]?.environment?.ROLE);
    expect(roles).toEqual(['gateway', 'projector', 'worker']);
    for (const s of ['gateway', 'projector', 'worker'])
      expect(compose.services[s].image).toBe('billflow:local');
    expect(Object.keys(compose.services)).toEqual(
      expect.arrayContaining(['kurrentdb', 'postgres', 'redis', 'gateway', 'projector', 'worker']),
    );
  });

  it("gives every role an environment the product's config accepts, with events in KurrentDB", () => {
    for (const role of ['gateway', 'projector', 'worker']) {
      const env = Object.fromEntries(
        Object.entries(compose.services[role].environment as Record<string, string>).map(([k, v]) => [
          k,
          interpolate(String(v), operator),
        ]),
      );
      const config = loadConfig(env);
      expect(config.ROLE).toBe(role);
      expect(config.EVENTSTORE_URL).toMatch(/^kurrentdb:\/\/kurrentdb:2113/);
      expect(new URL(config.DATABASE_URL).hostname).toBe('postgres');
      expect(new URL(config.REDIS_URL).hostname).toBe('redis');
    }
  });

  it('refuses to start without the secrets, saying which', () => {
    expect(() => interpolate(String(compose.services.gateway.environment.JWT_SECRET), {})).toThrow(
      /JWT_SECRET/,
    );
  });
});

describe('.env.example', () => {
  const text = readFileSync(path.join(ROOT, '.env.example'), 'utf8');
  const listed = new Map<string, string>();
  // Quotes are for the shell that sources the file, not part of the value.
  for (const [, name, value] of text.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=(.*)$/gm))
    listed.set(name, value.replace(/^"(.*)"$/, '$1'));

  it('lists every setting of services/shared/config.ts', () => {
    const missing = Object.keys(configSchema.shape).filter((k) => !listed.has(k));
    expect(missing).toEqual([]);
  });

  it('shows the real default of each setting that has one', () => {
    const defaults = configSchema.parse({
      DATABASE_URL: 'postgres://x@h/db',
      REDIS_URL: 'redis://h',
      JWT_SECRET: 'x'.repeat(40),
      ENCRYPTION_KEY: Buffer.alloc(32).toString('base64'),
    }) as Record<string, unknown>;
    const wrong: string[] = [];
    for (const [key, value] of listed) {
      const uncommented = new RegExp(`^${key}=`, 'm').test(text);
      if (!uncommented || !(key in defaults) || defaults[key] === undefined) continue;
      if (String(defaults[key]) !== value) wrong.push(`${key}=${value} (default ${String(defaults[key])})`);
    }
    expect(wrong).toEqual([]);
  });
});

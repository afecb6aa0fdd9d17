// A company's bank connection against the bank sandbox (tools/bank-sandbox, a real SFTP server) and
// a real gateway: an ADMIN sets an SFTP login and checks it (the folders listed), the secret stays
// sealed, a changed host key is refused naming both fingerprints, the bank's refusal of a login and a
// silent server are said in words, a MODERATOR and bad input are refused with nothing recorded, and
// the kernel's port opens a session the payments jobs can upload through.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import ssh2, { type SFTPWrapper } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { api, gql, signIn } from '../../test/support/http.js';
import { type BankSandbox, startBankSandbox } from '../../tools/bank-sandbox/server.js';
import { listFolder } from './bank-sftp.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/ach');
const ODFI = '231380104';
const PASSWORD = 'correct horse battery';
const key = ssh2.utils.generateKeyPairSync('ed25519');
const BASE = '/api/company/companies';

let t: TestApp;
let bank: BankSandbox;
let stateDir: string;
let silent: net.Server;
const sockets: net.Socket[] = [];
const tokens = { ADMIN: '', MODERATOR: '' };
let companyId = 0;

async function sql<T = any>(text: string, values: unknown[] = []): Promise<T[]> {
  const pool = new pg.Pool({ connectionString: t.env.DATABASE_URL, max: 1 });
  try {
    return (await pool.query(text, values)).rows as T[];
  } finally {
    await pool.end();
  }
}
const eventCount = async () =>
  (await sql(`SELECT count(*)::int AS n FROM es_events WHERE stream_id = $1`, [`company-${companyId}`]))[0].n;
const sftpInput = (over: Record<string, unknown> = {}) => ({
  mode: 'sftp',
  host: '127.0.0.1',
  port: bank.sftpPort,
  username: 'acme',
  password: PASSWORD,
  inbox: '/inbox',
  outbox: '/outbox',
  hostKeyFingerprint: bank.hostKeyFingerprint(),
  windows: ['10:00', '14:30', '16:30'],
  ...over,
});
const setConnection = (body: unknown, token = tokens.ADMIN) =>
  api(t.url, 'PUT', `${BASE}/${companyId}/bank-connection`, { body, token });
const check = (token = tokens.ADMIN) =>
  api(t.url, 'POST', `${BASE}/${companyId}/bank-connection/test`, { token });
const readCompany = async () =>
  (await api(t.url, 'GET', `${BASE}/${companyId}`, { token: tokens.ADMIN })).body.data;

beforeAll(async () => {
  stateDir = mkdtempSync(path.join(tmpdir(), 'bank-connection-'));
  bank = await startBankSandbox({
    stateDir,
    host: '127.0.0.1',
    answerDelaySeconds: 3600,
    users: [
      { routing: ODFI, username: 'acme', password: PASSWORD },
      { routing: ODFI, username: 'acme-key', publicKey: key.public },
    ],
  });
  // A server that takes the connection and never says a word.
  silent = net.createServer((s) => sockets.push(s));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t = await startTestApp();
  tokens.ADMIN = (await signIn(t.url, t.admin.email, t.admin.password)).tokens.accessToken;
  const moderator = await api(t.url, 'POST', '/api/auth/register', {
    body: {
      email: 'mod@bank.test',
      password: 'Passw0rd-123',
      role: 'MODERATOR',
      firstName: 'Mo',
      lastName: 'D',
    },
    token: tokens.ADMIN,
  });
  expect(moderator.status).toBe(201);
  tokens.MODERATOR = (await signIn(t.url, 'mod@bank.test', 'Passw0rd-123')).tokens.accessToken;
  const created = await api(t.url, 'POST', BASE, { body: { name: 'Bank Link Co' }, token: tokens.ADMIN });
  companyId = created.body.data.id;
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await bank?.close();
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => silent?.close(resolve));
  rmSync(stateDir, { recursive: true, force: true });
});

describe('a company’s bank connection', () => {
  it('is manual until set, with the default cut-offs; there is nothing to check', async () => {
    expect((await readCompany()).bankConnection).toEqual({
      mode: 'manual',
      host: null,
      port: null,
      username: null,
      passwordSet: false,
      keySet: false,
      inbox: null,
      outbox: null,
      hostKeyFingerprint: null,
      windows: ['10:15', '14:30', '16:30'],
      lastCheck: null,
    });
    const r = await check();
    expect(r.status).toBe(409);
    expect(r.body.message).toMatch(/by hand/);
    expect(await t.started.app.bankConnections.connection(companyId)).toEqual({ mode: 'manual' });
  });

  it('refuses a MODERATOR (403) and bad input (400, each field named); nothing is recorded', async () => {
    const before = await eventCount();
    expect((await setConnection(sftpInput(), tokens.MODERATOR)).status).toBe(403);
    expect((await check(tokens.MODERATOR)).status).toBe(403);
    const bad = await setConnection(sftpInput({ port: 0, host: 'bank host.example', windows: ['25:00'] }));
    expect(bad.status).toBe(400);
    expect(bad.body.success).toBe(false);
    expect(Object.fromEntries(bad.body.errors!.map((e) => [e.field, e.message]))).toEqual({
      port: 'Port must be a number from 1 to 65535',
      host: 'Host must be a host name or an IP address',
      'windows.0': 'Each cut-off must be a time of day HH:MM (00:00–23:59)',
    });
    const noSecret = await setConnection(sftpInput({ password: undefined }));
    expect(noSecret.status).toBe(400);
    expect(noSecret.body.errors).toEqual([
      { field: 'password', message: 'Give the password or the private key of the bank login' },
    ]);
    expect(await eventCount()).toBe(before);
    expect((await readCompany()).bankConnection.mode).toBe('manual');
  });

  it('an ADMIN sets an SFTP login; the check logs in, lists both folders and is shown on the company', async () => {
    const r = await setConnection(sftpInput());
    expect(r.status).toBe(200);
    expect(r.body.data.bankConnection).toMatchObject({
      mode: 'sftp',
      host: '127.0.0.1',
      port: bank.sftpPort,
      username: 'acme',
      passwordSet: true,
      keySet: false,
      hostKeyFingerprint: bank.hostKeyFingerprint(),
      windows: ['10:00', '14:30', '16:30'],
      lastCheck: null,
    });
    expect(JSON.stringify(r.body)).not.toContain(PASSWORD);
    // The port opens the same login for the payments jobs: an upload lands and the bank answers it.
    const ports = t.started.app.bankConnections;
    expect(await ports.sftpCompanies()).toContain(companyId);
    expect(await ports.connection(companyId)).toMatchObject({ mode: 'sftp', password: PASSWORD });
    const file = readFileSync(path.join(FIXTURES, 'valid/ach-ppd-read_ppd-credit.ach'), 'utf8');
    await ports.withSftp(
      companyId,
      (sftp: SFTPWrapper) =>
        new Promise<void>((resolve, reject) =>
          sftp.writeFile('/inbox/PAY_1.ach', file, (err) => (err ? reject(err) : resolve())),
        ),
    );
    expect(await ports.withSftp(companyId, (sftp) => listFolder(sftp, '/outbox'))).toEqual(['PAY_1.ach.ack']);

    const ok = await check();
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({
      ok: true,
      hostKeyFingerprint: bank.hostKeyFingerprint(),
      inbox: ['PAY_1.ach'],
      outbox: ['PAY_1.ach.ack'],
    });
    expect((await readCompany()).bankConnection.lastCheck).toMatchObject({
      ok: true,
      message: 'Logged in as acme: /inbox holds 1 files, /outbox holds 1',
      inboxFiles: 1,
      outboxFiles: 1,
    });
  });

  it('keeps the password sealed: never in plain in the log’s events or the read model', async () => {
    const events = await sql<{ type: string; d: string }>(
      `SELECT event_type AS type, data::text AS d FROM es_events WHERE stream_id = $1`,
      [`company-${companyId}`],
    );
    expect(events.map((e) => e.type)).toContain('CompanyBankConnectionSet');
    expect(events.map((e) => e.d).join()).not.toContain(PASSWORD);
    const set = events.find((e) => e.type === 'CompanyBankConnectionSet')!;
    expect(JSON.parse(set.d)).not.toHaveProperty('password');
    const rows = await sql<{ r: string }>(`SELECT to_jsonb(c)::text AS r FROM companies c WHERE id = $1`, [
      companyId,
    ]);
    expect(rows[0].r).toContain('"passwordSet": true');
    expect(rows[0].r).not.toContain(PASSWORD);
  });

  it('says the bank’s refusal of a wrong password in words, and records it', async () => {
    expect((await setConnection(sftpInput({ password: 'not the password' }))).status).toBe(200);
    const r = await check();
    expect(r.status).toBe(409);
    expect(r.body.message).toBe(
      'The bank refused the login of acme: All configured authentication methods failed',
    );
    expect(r.body.message).not.toContain('not the password');
    expect((await readCompany()).bankConnection.lastCheck).toMatchObject({
      ok: false,
      message: r.body.message,
      inboxFiles: null,
    });
    // Saved again without a password, the stored one stays.
    expect((await setConnection(sftpInput({ password: PASSWORD }))).status).toBe(200);
    expect(
      (await setConnection(sftpInput({ password: '', windows: ['09:45'] }))).body.data.bankConnection,
    ).toMatchObject({ passwordSet: true, windows: ['09:45'], lastCheck: null });
    expect((await check()).status).toBe(200);
  });

  it('logs in with a private key set over GraphQL; the key is never answered', async () => {
    const r = await gql(
      t.url,
      `mutation ($id: Int!, $input: BankConnectionInput!) {
        setCompanyBankConnection(id: $id, input: $input) {
          bankConnection { mode username passwordSet keySet windows }
        }
      }`,
      { id: companyId, input: sftpInput({ username: 'acme-key', password: null, privateKey: key.private }) },
      tokens.ADMIN,
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.setCompanyBankConnection.bankConnection).toEqual({
      mode: 'sftp',
      username: 'acme-key',
      passwordSet: false,
      keySet: true,
      windows: ['10:00', '14:30', '16:30'],
    });
    const checked = await gql(
      t.url,
      `mutation ($id: Int!) { testBankConnection(companyId: $id) { ok outbox } }`,
      { id: companyId },
      tokens.ADMIN,
    );
    expect(checked.data?.testBankConnection).toEqual({ ok: true, outbox: ['PAY_1.ach.ack'] });
    const rows = await sql<{ r: string }>(`SELECT data::text AS r FROM es_events WHERE stream_id = $1`, [
      `company-${companyId}`,
    ]);
    expect(rows.map((x) => x.r).join()).not.toContain(key.private.split('\n')[1]);
  });

  it('refuses a bank whose host key changed, naming both fingerprints', async () => {
    const pinned = bank.hostKeyFingerprint();
    const rotated = await fetch(`${bank.hooksUrl}/__bank/rotate-host-key`, { method: 'POST' });
    const { hostKeyFingerprint: now } = (await rotated.json()) as { hostKeyFingerprint: string };
    expect(now).not.toBe(pinned);
    const r = await check();
    expect(r.status).toBe(409);
    expect(r.body.message).toBe(
      `The bank's host key changed: expected ${pinned}, got ${now}; nothing was sent`,
    );
    expect((await readCompany()).bankConnection.lastCheck).toMatchObject({
      ok: false,
      hostKeyFingerprint: now,
    });
    await expect(t.started.app.bankConnections.withSftp(companyId, async () => 'sent')).rejects.toMatchObject(
      {
        kind: 'host-key',
      },
    );
  });

  it('says a server that never answers did not within 10 seconds, instead of hanging', async () => {
    const port = (silent.address() as net.AddressInfo).port;
    expect(
      (await setConnection(sftpInput({ port, hostKeyFingerprint: bank.hostKeyFingerprint() }))).status,
    ).toBe(200);
    const began = Date.now();
    const r = await check();
    expect(r.status).toBe(409);
    expect(r.body.message).toBe(`The bank's server at 127.0.0.1:${port} did not answer within 10 seconds`);
    expect(Date.now() - began).toBeLessThan(20_000);
  }, 30_000);
});

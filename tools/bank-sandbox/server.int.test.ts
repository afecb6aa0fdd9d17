// The bank sandbox over real SFTP (ssh2's Client): who may log in, what an upload gets back, the
// answers its rules make later, and what survives a restart or a new host key.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ssh2, { type ConnectConfig, type SFTPWrapper } from 'ssh2';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkNachaFile, field } from './checks.js';
import { type BankSandbox, startBankSandbox } from './server.js';

const { Client, utils } = ssh2;
const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/ach');
const credit = readFileSync(path.join(FIXTURES, 'valid/ach-ppd-read_ppd-credit.ach'), 'utf8');
const ODFI = '231380104';
const ed25519 = utils.generateKeyPairSync('ed25519');
const rsa = utils.generateKeyPairSync('rsa', { bits: 2048 });
const users = [
  { routing: ODFI, username: 'acme', password: 'correct horse' },
  { routing: ODFI, username: 'acme-key', publicKey: ed25519.public },
  { routing: ODFI, username: 'acme-rsa', publicKey: rsa.public },
];
/** The fixture's one entry (account 12345678) with another account number. */
const withAccount = (account: string) => credit.replace('12345678         ', account.padEnd(17));

const dirs: string[] = [];
let bank: BankSandbox;
const fingerprint = (key: Buffer) =>
  `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;

function connect(bankSandbox: BankSandbox, auth: Partial<ConnectConfig>, pin?: string) {
  return new Promise<{ sftp: SFTPWrapper; end: () => void }>((resolve, reject) => {
    const conn = new Client();
    conn
      .on('ready', () =>
        conn.sftp((err, sftp) => (err ? reject(err) : resolve({ sftp, end: () => conn.end() }))),
      )
      .on('error', reject)
      .connect({
        host: '127.0.0.1',
        port: bankSandbox.sftpPort,
        readyTimeout: 10_000,
        hostVerifier: (key: Buffer) => !pin || fingerprint(key) === pin,
        ...auth,
      });
  });
}
const call = <T>(fn: (cb: (err: Error | null | undefined, value: T) => void) => void) =>
  new Promise<T>((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));
const upload = (sftp: SFTPWrapper, name: string, content: string) =>
  call<void>((cb) => sftp.writeFile(name, content, (err) => cb(err, undefined)));
const download = (sftp: SFTPWrapper, name: string) =>
  call<Buffer>((cb) => sftp.readFile(name, cb)).then((b) => b.toString('latin1'));
const listOutbox = (sftp: SFTPWrapper) =>
  call<Array<{ filename: string }>>((cb) => sftp.readdir('/outbox', cb)).then((l) =>
    l.map((e) => e.filename).sort(),
  );
const hook = async (b: BankSandbox, route: string, body?: unknown) => {
  const res = await fetch(`${b.hooksUrl}/__bank/${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json() as Promise<Record<string, unknown>>;
};
/** Polls the outbox until a name matching the pattern is there (bounded, not a fixed sleep). */
async function outboxFile(sftp: SFTPWrapper, pattern: RegExp, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const name = (await listOutbox(sftp)).find((n) => pattern.test(n));
    if (name) return name;
    if (Date.now() > until) throw new Error(`no ${pattern} in /outbox`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const start = (stateDir: string, extra: Record<string, unknown> = {}) =>
  startBankSandbox({ stateDir, host: '127.0.0.1', users, answerDelaySeconds: 3600, ...extra });

beforeEach(async () => {
  dirs.push(mkdtempSync(path.join(tmpdir(), 'bank-sandbox-')));
  bank = await start(dirs.at(-1)!);
});
afterEach(() => bank.close());
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the bank sandbox over SFTP', () => {
  it('lets a user in by password or by ed25519 or RSA key and refuses wrong ones', async () => {
    for (const auth of [
      { username: 'acme', password: 'correct horse' },
      { username: 'acme-key', privateKey: ed25519.private },
      { username: 'acme-rsa', privateKey: rsa.private },
    ]) {
      const { sftp, end } = await connect(bank, auth, bank.hostKeyFingerprint());
      expect(
        (await call<Array<{ filename: string }>>((cb) => sftp.readdir('/', cb)))
          .map((e) => e.filename)
          .sort(),
      ).toEqual(['inbox', 'outbox']);
      end();
    }
    const other = utils.generateKeyPairSync('ed25519');
    await expect(connect(bank, { username: 'acme', password: 'wrong' })).rejects.toThrow(
      /authentication methods failed/,
    );
    await expect(connect(bank, { username: 'acme-key', privateKey: other.private })).rejects.toThrow(
      /authentication methods failed/,
    );
    await expect(connect(bank, { username: 'nobody', password: 'correct horse' })).rejects.toThrow(
      /authentication methods failed/,
    );
  });

  it('acknowledges a good file, rejects a broken one with its reason, refuses a second upload of a name', async () => {
    const { sftp, end } = await connect(bank, users[0]);
    await upload(sftp, '/inbox/PAY_1.ach', credit);
    expect(await listOutbox(sftp)).toEqual(['PAY_1.ach.ack']);
    const ack = await download(sftp, '/outbox/PAY_1.ach.ack');
    expect(ack).toContain('status: accepted');
    expect(ack).toContain(`sha256: ${createHash('sha256').update(credit).digest('hex')}`);
    expect(ack).toContain('entries: 1');
    expect(ack).toContain('total credit: 1000000.00');

    await upload(
      sftp,
      '/inbox/PAY_2.ach',
      credit.replace('0023138010000000000000000100000000', '0023138011000000000000000100000000'),
    );
    const rej = await download(sftp, '/outbox/PAY_2.ach.rej');
    expect(rej).toContain('status: rejected');
    expect(rej).toMatch(/reason: record 4: batch control's entry hash 0023138011 does not match the entries/);

    await expect(upload(sftp, '/inbox/PAY_1.ach', credit)).rejects.toThrow(
      /duplicate file: a file named PAY_1.ach was received/,
    );
    expect(await download(sftp, '/outbox/PAY_1.ach.2.rej')).toContain('reason: duplicate file');
    expect(await download(sftp, '/outbox/PAY_1.ach.ack')).toBe(ack);
    end();
  });

  it('keeps a user inside the ODFI root', async () => {
    const { sftp, end } = await connect(bank, users[0]);
    await expect(call((cb) => sftp.readdir('/..', cb))).rejects.toThrow(/outside your folders/);
    await expect(call((cb) => sftp.realpath('../..', cb))).rejects.toThrow(/outside your folders/);
    await expect(upload(sftp, '/inbox/../../state.json', '{}')).rejects.toThrow(/outside your folders/);
    await expect(upload(sftp, '/outbox/forged.ach.ack', 'status: accepted')).rejects.toThrow(
      /uploads go to \/inbox/,
    );
    await expect(call<void>((cb) => sftp.mkdir('/inbox/x', (e) => cb(e, undefined)))).rejects.toThrow(
      /folders/,
    );
    expect(JSON.parse(readFileSync(path.join(dirs.at(-1)!, 'state.json'), 'utf8')).version).toBe(1);
    end();
  });

  it('returns and corrects entries by its rules: 94-character records whose addenda carry the original trace', async () => {
    await hook(bank, 'rules', {
      rules: [
        { match: { accountSuffix: '0003' }, answer: { kind: 'return', code: 'R03' } },
        {
          match: { accountNumber: '44450101' },
          answer: { kind: 'noc', code: 'C01', correctedAccountSuffix: '0102' },
        },
      ],
    });
    const { sftp, end } = await connect(bank, users[0]);
    await upload(sftp, '/inbox/PAY_R.ach', withAccount('44450003'));
    await upload(sftp, '/inbox/PAY_C.ach', withAccount('44450101'));
    await upload(sftp, '/inbox/PAY_N.ach', withAccount('44450004'));
    expect((await hook(bank, 'answer-now', {})).written).toHaveLength(2);
    const ret = await download(sftp, `/outbox/${await outboxFile(sftp, /^RET_\d{8}_1\.ach$/)}`);
    const cor = await download(sftp, `/outbox/${await outboxFile(sftp, /^COR_\d{8}_1\.ach$/)}`);
    const originalTrace = field(credit.split('\n')[2], 80, 94);
    for (const [file, addenda, code] of [
      [ret, '799', 'R03'],
      [cor, '798', 'C01'],
    ] as const) {
      const records = file.trimEnd().split('\n');
      expect(records.every((r) => r.length === 94)).toBe(true);
      expect(checkNachaFile(file, ODFI).ok).toBe(true);
      const a = records.find((r) => r.startsWith(addenda))!;
      expect(field(a, 4, 6)).toBe(code);
      expect(field(a, 7, 21)).toBe(originalTrace);
    }
    expect(field(cor.split('\n').find((r) => r.startsWith('798'))!, 36, 64).trim()).toBe('44450102');
    expect((await listOutbox(sftp)).filter((n) => /^(RET|COR)_/.test(n))).toHaveLength(2);
    end();
  });

  it('after a restart finds its files and still writes the answer due', async () => {
    const stateDir = dirs.at(-1)!;
    await hook(bank, 'delay', { seconds: 1 });
    await hook(bank, 'rules', {
      rules: [{ match: { accountSuffix: '0002' }, answer: { kind: 'return', code: 'R02' } }],
    });
    const before = bank.hostKeyFingerprint();
    const first = await connect(bank, users[0]);
    await upload(first.sftp, '/inbox/PAY_X.ach', withAccount('7770002'));
    first.end();
    await bank.close();

    bank = await start(stateDir);
    expect(bank.hostKeyFingerprint()).toBe(before);
    const { sftp, end } = await connect(bank, users[0], before);
    const ret = await download(sftp, `/outbox/${await outboxFile(sftp, /^RET_/)}`);
    expect(field(ret.split('\n').find((r) => r.startsWith('799'))!, 4, 6)).toBe('R02');
    await expect(upload(sftp, '/inbox/PAY_X.ach', credit)).rejects.toThrow(/duplicate file/);
    end();
  });

  it('rotates its host key so a pinned client refuses it, and can drop a connection after an upload landed', async () => {
    const pinned = bank.hostKeyFingerprint();
    const { hostKeyFingerprint } = (await hook(bank, 'rotate-host-key', {})) as {
      hostKeyFingerprint: string;
    };
    expect(hostKeyFingerprint).not.toBe(pinned);
    expect(bank.hostKeyFingerprint()).toBe(hostKeyFingerprint);
    await expect(connect(bank, users[0], pinned)).rejects.toThrow(/verification failed/i);

    await hook(bank, 'faults', { refuseUploads: 1, dropAfterWrite: 1 });
    const { sftp } = await connect(bank, users[0], hostKeyFingerprint);
    await expect(upload(sftp, '/inbox/PAY_F.ach', credit)).rejects.toThrow(/permission denied/i);
    await expect(upload(sftp, '/inbox/PAY_F.ach', credit)).rejects.toThrow();
    // The connection is gone, but the upload landed: the bank answered it.
    const files = (await hook(bank, 'files')) as { odfis: Array<{ outbox: Array<{ name: string }> }> };
    expect(files.odfis[0].outbox.map((f) => f.name)).toEqual(['PAY_F.ach.ack']);
  });
});

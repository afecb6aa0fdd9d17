// The bank connection's rules: what the company decider records when it is set or checked, and what
// its input accepts (the host, the port, the pinned fingerprint, the cut-off windows, one secret).
import ssh2 from 'ssh2';
import { describe, expect, it } from 'vitest';
import {
  BankConnectionInput,
  DEFAULT_CUTOFF_WINDOWS,
} from '../../schema/companies/bank-connection-commands.js';
import type { BankConnectionSettings, CompanyEvent } from '../../schema/companies/events.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { toSftpConnection } from './bank-connection-access.js';
import { fingerprintOf, privateKeyProblem } from './bank-sftp.js';
import { companyDecider, MANUAL_BANK_CONNECTION } from './company-decider.js';

const now = '2026-03-02T15:00:00.000Z';
const FINGERPRINT = `SHA256:${'A'.repeat(42)}E`;
const created: CompanyEvent = {
  type: 'CompanyCreated',
  data: {
    companyId: 5,
    name: 'Acme Corp',
    email: null,
    phone: null,
    website: null,
    address: null,
    description: null,
    industry: null,
    status: 'ACTIVE',
    managerId: null,
    processorId: null,
    approverId: null,
    accountantId: null,
    qbPaymentAccountReference: null,
    createdAt: now,
  },
};
const sftp: BankConnectionSettings = {
  mode: 'sftp',
  host: 'sftp.bank.example',
  port: 22,
  username: 'acme',
  password: 'correct horse',
  privateKey: null,
  inbox: '/inbox',
  outbox: '/outbox',
  hostKeyFingerprint: FINGERPRINT,
  windows: ['10:00', '14:30', '16:30'],
};
const set = (settings: BankConnectionSettings): CompanyEvent => ({
  type: 'CompanyBankConnectionSet',
  data: { companyId: 5, ...settings, at: now },
});
const check = (checked: BankConnectionSettings, ok = true) =>
  ({
    type: 'RecordBankConnectionCheck',
    checked,
    ok,
    message: ok ? 'Logged in as acme' : 'The bank refused the login of acme: denied',
    hostKeyFingerprint: FINGERPRINT,
    inboxFiles: ok ? 0 : null,
    outboxFiles: ok ? 2 : null,
    now,
  }) as const;

describe('company decider: the bank connection', () => {
  const spec = deciderSpec(companyDecider);

  it('starts by hand with the default cut-offs, 15 minutes before the Fed’s same-day deadlines', () => {
    expect(companyDecider.initialState().bank).toEqual(MANUAL_BANK_CONNECTION);
    expect(MANUAL_BANK_CONNECTION.windows).toEqual(['10:15', '14:30', '16:30']);
  });

  it('records a new connection once, and nothing when it is the same', () => {
    spec
      .given([created])
      .when({ type: 'SetBankConnection', settings: sftp, now })
      .then([set(sftp)]);
    spec
      .given([created, set(sftp)])
      .when({ type: 'SetBankConnection', settings: sftp, now })
      .then([]);
    const later = { ...sftp, windows: ['10:00', '14:30'] };
    spec
      .given([created, set(sftp)])
      .when({ type: 'SetBankConnection', settings: later, now })
      .then([set(later)]);
    spec
      .given([created, set(sftp)])
      .when({ type: 'SetBankConnection', settings: MANUAL_BANK_CONNECTION, now })
      .then([set(MANUAL_BANK_CONNECTION)]);
  });

  it('refuses an SFTP connection without a password or a key, and a deleted company', () => {
    spec
      .given([created])
      .when({ type: 'SetBankConnection', settings: { ...sftp, password: null }, now })
      .thenRefuses('VALIDATION', /password or the private key/);
    spec
      .given([created, { type: 'CompanyDeleted', data: { companyId: 5, at: now } }])
      .when({ type: 'SetBankConnection', settings: sftp, now })
      .thenRefuses('NOT_FOUND');
  });

  it('records a check of the connection in force, and none of one since changed or gone manual', () => {
    spec
      .given([created, set(sftp)])
      .when(check(sftp, false))
      .then([
        {
          type: 'CompanyBankConnectionChecked',
          data: {
            companyId: 5,
            ok: false,
            message: 'The bank refused the login of acme: denied',
            host: 'sftp.bank.example',
            hostKeyFingerprint: FINGERPRINT,
            inboxFiles: null,
            outboxFiles: null,
            at: now,
          },
        },
      ]);
    const moved = { ...sftp, host: 'sftp2.bank.example' };
    spec
      .given([created, set(moved)])
      .when(check(sftp))
      .then([]);
    spec
      .given([created, set(sftp), set(MANUAL_BANK_CONNECTION)])
      .when(check(sftp))
      .then([]);
  });

  it('gives the port the login with one secret, and nothing for a forgotten company’s erased secret', () => {
    expect(toSftpConnection(sftp)).toMatchObject({ mode: 'sftp', password: 'correct horse' });
    expect(toSftpConnection(sftp)).not.toHaveProperty('privateKey');
    expect(toSftpConnection({ ...sftp, password: null })).toBeNull();
    expect(toSftpConnection(MANUAL_BANK_CONNECTION)).toBeNull();
  });
});

describe('the bank connection input', () => {
  const ok = {
    mode: 'sftp',
    host: 'sftp.bank.example',
    username: 'acme',
    password: 'correct horse',
    hostKeyFingerprint: FINGERPRINT,
  };
  const errors = (input: Record<string, unknown>) => {
    const r = BankConnectionInput.safeParse(input);
    return r.success ? {} : Object.fromEntries(r.error.issues.map((i) => [i.path.join('.'), i.message]));
  };

  it('fills port 22, the folders and the default windows; manual needs nothing else', () => {
    expect(BankConnectionInput.parse(ok)).toMatchObject({
      port: 22,
      inbox: '/inbox',
      outbox: '/outbox',
      windows: [...DEFAULT_CUTOFF_WINDOWS],
    });
    expect(BankConnectionInput.parse({ mode: 'manual' })).toMatchObject({ mode: 'manual' });
    expect(BankConnectionInput.parse({ ...ok, port: '2222', host: '10.0.0.7' }).port).toBe(2222);
    expect(BankConnectionInput.parse({ ...ok, host: 'fd00::7' }).host).toBe('fd00::7');
    // OpenSSH prints no padding; a pasted one with it reads the same.
    expect(
      BankConnectionInput.parse({ ...ok, hostKeyFingerprint: `${FINGERPRINT}=` }).hostKeyFingerprint,
    ).toBe(FINGERPRINT);
  });

  it('refuses a bad port, host, fingerprint and windows, naming the field', () => {
    expect(errors({ ...ok, port: 0 })).toEqual({ port: 'Port must be a number from 1 to 65535' });
    expect(errors({ ...ok, port: 65536 })).toHaveProperty('port');
    expect(errors({ ...ok, host: 'bank host.example' })).toEqual({
      host: 'Host must be a host name or an IP address',
    });
    expect(errors({ ...ok, hostKeyFingerprint: 'MD5:aa:bb' })).toHaveProperty('hostKeyFingerprint');
    expect(errors({ ...ok, windows: ['25:00'] })).toEqual({
      'windows.0': 'Each cut-off must be a time of day HH:MM (00:00–23:59)',
    });
    expect(errors({ ...ok, windows: ['14:30', '10:00'] })).toEqual({
      windows: 'Cut-off windows must be in order of the day',
    });
    expect(errors({ ...ok, windows: ['10:00', '10:00'] })).toEqual({
      windows: 'Cut-off 10:00 is given twice',
    });
    expect(errors({ ...ok, windows: [] })).toEqual({ windows: 'Give at least one cut-off window' });
    expect(
      errors({ ...ok, windows: ['01:00', '02:00', '03:00', '04:00', '05:00', '06:00', '07:00'] }),
    ).toEqual({
      windows: 'Give at most 6 cut-off windows',
    });
    expect(errors({ ...ok, inbox: '/../etc' })).toEqual({ inbox: 'Inbox folder must not climb out with ..' });
  });

  it('wants the host, the user and the fingerprint for SFTP, and one secret at most', () => {
    expect(Object.keys(errors({ mode: 'sftp' })).sort()).toEqual(['host', 'hostKeyFingerprint', 'username']);
    expect(errors({ ...ok, privateKey: 'a key' })).toEqual({
      privateKey: 'Give a password or a private key, not both',
    });
  });
});

describe('keys', () => {
  it('reads a private key without a passphrase, and says what is wrong with others without showing them', () => {
    const pair = ssh2.utils.generateKeyPairSync('ed25519');
    expect(privateKeyProblem(pair.private)).toBeNull();
    expect(privateKeyProblem(pair.public)).toBe('That is a public key: give the private key');
    expect(privateKeyProblem('not a key')).toMatch(/could not be read/);
    const locked = ssh2.utils.generateKeyPairSync('ed25519', {
      passphrase: 'pw',
      cipher: 'aes256-ctr',
      rounds: 4,
    });
    expect(privateKeyProblem(locked.private)).toMatch(/passphrase/);
  });

  it('prints a fingerprint as OpenSSH does', () => {
    expect(fingerprintOf(Buffer.from('key'))).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });
});

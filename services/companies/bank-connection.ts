// A company's connection to its bank: by hand (download the file, confirm by e-mail link) or SFTP to
// its bank, with its cut-off windows; and a check of the SFTP connection that logs in with the host
// key pinned, lists both folders and records the outcome on the company. The password or private key
// is sealed in the company's events and never leaves the server, a log line or an error.

import type { BankConnectionTest } from '../../schema/companies/answers.js';
import { BankConnectionInput } from '../../schema/companies/bank-connection-commands.js';
import type { BankConnectionSettings } from '../../schema/companies/events.js';
import { BankSftpError } from '../app/bank-connections.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { AppError, parseInput } from '../shared/errors.js';
import { NOT_SFTP, toSftpConnection } from './bank-connection-access.js';
import { BANK_CONNECT_TIMEOUT_MS, listFolder, privateKeyProblem, withBankSftp } from './bank-sftp.js';
import { answer, load, run } from './company-command.js';
import { MANUAL_BANK_CONNECTION } from './company-decider.js';
import { type CompanyDto, parseId } from './company-rows.js';

const NO_SECRET = 'Give the password or the private key of the bank login';

/** The settings to record: a secret left out keeps the stored one; a new one replaces the other kind. */
function settingsOf(data: BankConnectionInput, stored: BankConnectionSettings): BankConnectionSettings {
  if (data.mode === 'manual') return { ...MANUAL_BANK_CONNECTION, windows: data.windows };
  if (data.privateKey !== undefined) {
    const problem = privateKeyProblem(data.privateKey);
    if (problem) throw new AppError('VALIDATION', problem, [{ field: 'privateKey', message: problem }]);
  }
  const kept = stored.mode === 'sftp' && data.password === undefined && data.privateKey === undefined;
  const password = kept ? stored.password : (data.password ?? null);
  const privateKey = kept ? stored.privateKey : (data.privateKey ?? null);
  if (!password && !privateKey)
    throw new AppError('VALIDATION', NO_SECRET, [{ field: 'password', message: NO_SECRET }]);
  return {
    mode: 'sftp',
    host: data.host!,
    port: data.port,
    username: data.username!,
    password,
    privateKey,
    inbox: data.inbox,
    outbox: data.outbox,
    hostKeyFingerprint: data.hostKeyFingerprint!,
    windows: data.windows,
  };
}

export async function setBankConnection(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<CompanyDto> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const data = parseInput(BankConnectionInput, input);
  const state = await load(app, companyId);
  const r = await run(app, actor, companyId, {
    type: 'SetBankConnection',
    settings: settingsOf(data, state.bank),
    now: new Date().toISOString(),
  });
  return answer(app, companyId, r.position);
}

/**
 * Logs in to the bank with the stored secret (10 s at most), the host key checked against the pinned
 * one before anything is sent, and lists the inbox and outbox. The outcome is recorded on the
 * company either way; a failure is then refused (CONFLICT) in words: the bank's own where it gave
 * some, or that its host key changed, naming both fingerprints.
 */
export async function testBankConnection(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<BankConnectionTest> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const state = await load(app, companyId);
  const conn = toSftpConnection(state.bank);
  if (!conn)
    throw new AppError(
      'CONFLICT',
      state.bank.mode === 'sftp'
        ? 'The bank login’s password or key is gone (the company’s data was forgotten): set the connection again'
        : NOT_SFTP,
    );
  let listed: { inbox: string[]; outbox: string[] } | null = null;
  let failure: BankSftpError | null = null;
  try {
    listed = await withBankSftp(
      conn,
      async (sftp) => ({
        inbox: await listFolder(sftp, conn.inbox),
        outbox: await listFolder(sftp, conn.outbox),
      }),
      { connectTimeoutMs: BANK_CONNECT_TIMEOUT_MS, workTimeoutMs: BANK_CONNECT_TIMEOUT_MS },
    );
  } catch (err) {
    if (!(err instanceof BankSftpError)) throw err;
    failure = err;
  }
  const now = new Date().toISOString();
  const message = listed
    ? `Logged in as ${conn.username}: ${conn.inbox} holds ${listed.inbox.length} files, ${conn.outbox} holds ${listed.outbox.length}`
    : failure!.message;
  app.log.info(
    { companyId, host: conn.host, ok: !!listed, kind: failure?.kind ?? null },
    'bank connection checked',
  );
  const r = await run(app, actor, companyId, {
    type: 'RecordBankConnectionCheck',
    checked: state.bank,
    ok: !!listed,
    message,
    hostKeyFingerprint: listed ? conn.hostKeyFingerprint : failure!.hostKeyFingerprint,
    inboxFiles: listed?.inbox.length ?? null,
    outboxFiles: listed?.outbox.length ?? null,
    now,
  });
  // The page shows the outcome from the read model: have it there before answering.
  await awaitProjections(app, r.position, ['companies']);
  if (!listed) throw new AppError('CONFLICT', message);
  return {
    ok: true,
    message,
    hostKeyFingerprint: conn.hostKeyFingerprint,
    inbox: listed.inbox,
    outbox: listed.outbox,
    checkedAt: now,
  };
}

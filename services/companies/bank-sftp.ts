// A session with a company's bank over SFTP (ssh2's Client): the server's host key is checked against
// the pinned fingerprint before the login is sent, so a server that is not the bank never sees the
// password; the session is bounded in time and always closed. Failures come back as BankSftpError in
// words. ssh2's own errors are never passed on: a refused connection to the bank must not read as the
// database being down (services/shared/errors.ts isConnectionError looks at codes such as ECONNREFUSED).
import { createHash } from 'node:crypto';
import ssh2, { type FileEntry, type SFTPWrapper } from 'ssh2';
import { BankSftpError, type SftpBankConnection } from '../app/bank-connections.js';

// ssh2 is CommonJS: its parts come from the default export.
const { Client, utils } = ssh2;

export const BANK_CONNECT_TIMEOUT_MS = 10_000;
export const BANK_WORK_TIMEOUT_MS = 60_000;

/** A public key blob's fingerprint as OpenSSH prints it: SHA256: and unpadded base64. */
export const fingerprintOf = (publicKeyBlob: Buffer) =>
  `SHA256:${createHash('sha256').update(publicKeyBlob).digest('base64').replace(/=+$/, '')}`;

/** Whether ssh2 can use the key: OpenSSH or PEM, without a passphrase. Never says what the key is. */
export function privateKeyProblem(key: string): string | null {
  const parsed = utils.parseKey(key);
  if (parsed instanceof Error)
    return /encrypted|passphrase/i.test(parsed.message)
      ? 'The private key is protected by a passphrase: give it without one'
      : 'The private key could not be read: give it in OpenSSH or PEM form';
  const one = Array.isArray(parsed) ? parsed[0] : parsed;
  return one?.isPrivateKey() ? null : 'That is a public key: give the private key';
}

const seconds = (ms: number) => {
  const n = Math.max(1, Math.round(ms / 1000));
  return `${n} second${n === 1 ? '' : 's'}`;
};

/** ssh2's error in words for the person who set the connection up. */
function inWords(
  err: Error & { code?: unknown; level?: unknown },
  conn: SftpBankConnection,
  timeoutMs: number,
) {
  const where = `${conn.host}:${conn.port}`;
  if (err.level === 'client-authentication')
    return new BankSftpError('login', `The bank refused the login of ${conn.username}: ${err.message}`);
  if (err.level === 'client-timeout' || err.code === 'ETIMEDOUT')
    return new BankSftpError(
      'timeout',
      `The bank's server at ${where} did not answer within ${seconds(timeoutMs)}`,
    );
  if (err.code === 'ECONNREFUSED')
    return new BankSftpError('unreachable', `The bank's server at ${where} refused the connection`);
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN')
    return new BankSftpError('unreachable', `The bank's host name ${conn.host} was not found`);
  const code = typeof err.code === 'string' ? ` (${err.code})` : '';
  return new BankSftpError(
    'unreachable',
    `Could not reach the bank's server at ${where}: ${err.message}${code}`,
  );
}

function connect(client: InstanceType<typeof Client>, conn: SftpBankConnection, timeoutMs: number) {
  return new Promise<SFTPWrapper>((resolve, reject) => {
    let seen: string | null = null;
    let settled = false;
    const settle = (err: BankSftpError | null, sftp?: SFTPWrapper) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(sftp!);
    };
    // ssh2's readyTimeout covers the handshake and the login; this covers the SFTP channel too.
    const timer = setTimeout(
      () =>
        settle(
          new BankSftpError(
            'timeout',
            `The bank's server at ${conn.host}:${conn.port} did not answer within ${seconds(timeoutMs)}`,
          ),
        ),
      timeoutMs,
    );
    client.on('error', (err: Error & { code?: unknown; level?: unknown }) => {
      if (seen !== null && seen !== conn.hostKeyFingerprint)
        return settle(
          new BankSftpError(
            'host-key',
            `The bank's host key changed: expected ${conn.hostKeyFingerprint}, got ${seen}; nothing was sent`,
            seen,
          ),
        );
      settle(inWords(err, conn, timeoutMs));
    });
    client.on('close', () =>
      settle(
        new BankSftpError(
          'unreachable',
          `The bank's server at ${conn.host}:${conn.port} closed the connection`,
        ),
      ),
    );
    client.on('ready', () =>
      client.sftp((err, sftp) =>
        settle(
          err ? new BankSftpError('sftp', `The bank's server refused SFTP: ${err.message}`) : null,
          sftp,
        ),
      ),
    );
    // ssh2 throws at once on a key it cannot use (checked when saved, so this is a stored key gone bad).
    try {
      connectWith(client, conn, timeoutMs, (key) => {
        seen = fingerprintOf(key);
        return seen === conn.hostKeyFingerprint;
      });
    } catch {
      settle(
        new BankSftpError('login', 'The stored private key could not be used: set the connection again'),
      );
    }
  });
}

function connectWith(
  client: InstanceType<typeof Client>,
  conn: SftpBankConnection,
  timeoutMs: number,
  hostVerifier: (key: Buffer) => boolean,
) {
  client.connect({
    host: conn.host,
    port: conn.port,
    username: conn.username,
    ...(conn.privateKey ? { privateKey: conn.privateKey } : { password: conn.password }),
    readyTimeout: timeoutMs,
    // Called before the login is sent: a key other than the pinned one ends the handshake.
    hostVerifier,
  });
}

/**
 * Connects to the bank (`connectTimeoutMs`, default 10 s, to be logged in), refuses any host key but
 * the pinned one, runs `work` on the SFTP session (bounded by `workTimeoutMs`, default 60 s) and
 * always closes the connection. Connection failures are BankSftpError; `work`'s own errors pass as
 * they are.
 */
export async function withBankSftp<T>(
  conn: SftpBankConnection,
  work: (sftp: SFTPWrapper) => Promise<T>,
  options: { connectTimeoutMs?: number; workTimeoutMs?: number } = {},
): Promise<T> {
  const client = new Client();
  let timer: NodeJS.Timeout | undefined;
  try {
    const sftp = await connect(client, conn, options.connectTimeoutMs ?? BANK_CONNECT_TIMEOUT_MS);
    const workTimeoutMs = options.workTimeoutMs ?? BANK_WORK_TIMEOUT_MS;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new BankSftpError(
              'timeout',
              `The bank's server at ${conn.host}:${conn.port} did not finish within ${seconds(workTimeoutMs)}`,
            ),
          ),
        workTimeoutMs,
      );
    });
    return await Promise.race([work(sftp), timedOut]);
  } finally {
    clearTimeout(timer);
    // end() says goodbye; destroy() makes sure a server that stopped answering cannot hold us.
    client.end();
    client.destroy();
  }
}

/** The names in a folder of the bank's server (sorted), or the bank's refusal in its words. */
export function listFolder(sftp: SFTPWrapper, folder: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    sftp.readdir(folder, (err: Error | undefined, list: FileEntry[]) =>
      err
        ? reject(new BankSftpError('sftp', `The bank refused to list ${folder}: ${err.message}`))
        : resolve(list.map((e) => e.filename).sort()),
    ),
  );
}

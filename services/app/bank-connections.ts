// The kernel's port to a company's bank connection, kept by the companies module: whether its NACHA
// files go by hand or over SFTP, the SFTP login opened from the company's sealed events, and a session
// with the bank's server whose host key is checked against the pinned one before anything is sent.
// The payments module's delivery and inbound jobs use it without importing the companies module.
import type { SFTPWrapper } from 'ssh2';

/** A company's connection to its bank as a job needs it: the secret in plain, never to be logged. */
export type BankConnectionSettings =
  | { mode: 'manual' }
  | {
      mode: 'sftp';
      host: string;
      port: number;
      username: string;
      /** One of the two is set. */
      password?: string;
      privateKey?: string;
      /** Where uploads go. */
      inbox: string;
      /** Where the bank's answers are. */
      outbox: string;
      /** SHA256:… as OpenSSH prints it: any other host key is refused before anything is sent. */
      hostKeyFingerprint: string;
      /** Cut-offs, times of day in New York (HH:MM), in order. */
      windows: string[];
    };

export type SftpBankConnection = Extract<BankConnectionSettings, { mode: 'sftp' }>;

export interface BankConnectionAccess {
  /** The company's connection; NOT_FOUND for a company that does not exist or was deleted. */
  connection(companyId: number): Promise<BankConnectionSettings>;
  /** The companies (not deleted) whose files go over SFTP, by id. */
  sftpCompanies(): Promise<number[]>;
  /**
   * Connects to the company's bank (10 s to log in), refuses a host key other than the pinned one,
   * runs `work` on the SFTP session and always closes it. CONFLICT when the company sends its files
   * by hand; a failure to connect or log in, or `work` running past `timeoutMs` (default 60 s), is a
   * BankSftpError (below) whose message says it in words (the bank's own where it gave some).
   */
  withSftp<T>(
    companyId: number,
    work: (sftp: SFTPWrapper) => Promise<T>,
    options?: { timeoutMs?: number },
  ): Promise<T>;
}

/**
 * Why a session with the bank failed: `host-key` (not the pinned key: nothing was sent), `login`
 * (the bank refused the user), `unreachable`, `timeout`, or `sftp` (the bank refused an operation).
 * The message is for people: the bank's own words where it gave some, never the secret.
 */
export class BankSftpError extends Error {
  constructor(
    public readonly kind: 'host-key' | 'login' | 'unreachable' | 'timeout' | 'sftp',
    message: string,
    /** The host key the server showed, when it showed one that was not the pinned key. */
    public readonly hostKeyFingerprint: string | null = null,
  ) {
    super(message);
    this.name = 'BankSftpError';
  }
}

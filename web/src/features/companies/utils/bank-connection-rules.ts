// The bank connection form's checks, with the server's words (schema/companies/bank-connection-
// commands.ts), so a mistake shows at its field before anything is sent; and the form's body.
import type { BankConnection, BankConnectionPayload } from '../api/bank-connection';

export type BankConnectionField =
  | 'host'
  | 'port'
  | 'username'
  | 'password'
  | 'privateKey'
  | 'inbox'
  | 'outbox'
  | 'hostKeyFingerprint'
  | 'windows';
export type BankConnectionErrors = Partial<Record<BankConnectionField, string>>;

export interface BankConnectionForm {
  mode: 'manual' | 'sftp';
  host: string;
  port: string;
  username: string;
  /** Which secret the login uses. */
  auth: 'password' | 'key';
  /** Empty: keep the stored one. */
  password: string;
  privateKey: string;
  inbox: string;
  outbox: string;
  hostKeyFingerprint: string;
  /** Comma-separated HH:MM. */
  windows: string;
}

/** 15 minutes before the Fed's same-day deadlines (10:30, 14:45, 16:45 New York). */
export const DEFAULT_WINDOWS = ['10:15', '14:30', '16:30'];

const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const IPV6 = /^(?=.*:.*:)[0-9A-Fa-f:.]{2,45}$/;
const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;
const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

export function formOf(c: BankConnection): BankConnectionForm {
  return {
    mode: c.mode,
    host: c.host ?? '',
    port: c.port == null ? '22' : String(c.port),
    username: c.username ?? '',
    auth: c.keySet ? 'key' : 'password',
    password: '',
    privateKey: '',
    inbox: c.inbox ?? '/inbox',
    outbox: c.outbox ?? '/outbox',
    hostKeyFingerprint: c.hostKeyFingerprint ?? '',
    windows: c.windows.join(', '),
  };
}

export const windowsOf = (text: string) =>
  text
    .split(/[,\s]+/)
    .map((w) => w.trim())
    .filter(Boolean);

function windowsProblem(list: string[]): string | undefined {
  if (list.length === 0) return 'Give at least one cut-off window';
  if (list.length > 6) return 'Give at most 6 cut-off windows';
  if (!list.every((w) => TIME_OF_DAY.test(w)))
    return 'Each cut-off must be a time of day HH:MM (00:00–23:59)';
  for (let i = 1; i < list.length; i++) {
    if (list[i] === list[i - 1]) return `Cut-off ${list[i]} is given twice`;
    if (list[i] < list[i - 1]) return 'Cut-off windows must be in order of the day';
  }
  return undefined;
}

/** The form's mistakes; `stored` says whether a secret of the chosen kind is kept when left empty. */
export function validateBankConnection(f: BankConnectionForm, stored: BankConnection): BankConnectionErrors {
  const errors: BankConnectionErrors = {};
  const windows = windowsProblem(windowsOf(f.windows));
  if (windows) errors.windows = windows;
  if (f.mode === 'manual') return errors;
  const host = f.host.trim();
  if (!host) errors.host = 'Host is required';
  else if (!HOST_NAME.test(host) && !IPV6.test(host))
    errors.host = 'Host must be a host name or an IP address';
  const port = f.port.trim();
  if (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535)
    errors.port = 'Port must be a number from 1 to 65535';
  if (!f.username.trim()) errors.username = 'Username is required';
  const fingerprint = f.hostKeyFingerprint.trim().replace(/=+$/, '');
  if (!fingerprint) errors.hostKeyFingerprint = 'The bank’s host key fingerprint is required (SHA256:…)';
  else if (!FINGERPRINT.test(fingerprint))
    errors.hostKeyFingerprint = 'Host key fingerprint must read SHA256:… as ssh-keygen -lf prints it';
  for (const [field, label] of [
    ['inbox', 'Inbox folder'],
    ['outbox', 'Outbox folder'],
  ] as const) {
    const v = f[field].trim();
    if (!v) errors[field] = `${label} is required`;
    else if (v.split('/').includes('..')) errors[field] = `${label} must not climb out with ..`;
  }
  const kept = stored.mode === 'sftp' && (f.auth === 'key' ? stored.keySet : stored.passwordSet);
  if (f.auth === 'password' && !f.password && !kept)
    errors.password = 'Give the password or the private key of the bank login';
  if (f.auth === 'key' && !f.privateKey.trim() && !kept)
    errors.privateKey = 'Give the password or the private key of the bank login';
  return errors;
}

/** The body of setCompanyBankConnection: the secret of the chosen kind only, left out when empty. */
export function payloadOf(f: BankConnectionForm): BankConnectionPayload {
  const windows = windowsOf(f.windows);
  if (f.mode === 'manual') return { mode: 'manual', windows };
  const secret =
    f.auth === 'key'
      ? f.privateKey.trim()
        ? { privateKey: f.privateKey }
        : {}
      : f.password
        ? { password: f.password }
        : {};
  return {
    mode: 'sftp',
    host: f.host.trim(),
    port: Number(f.port.trim()),
    username: f.username.trim(),
    ...secret,
    inbox: f.inbox.trim(),
    outbox: f.outbox.trim(),
    hostKeyFingerprint: f.hostKeyFingerprint.trim(),
    windows,
  };
}

/** A server field error's field on this form (`windows.0` is the windows field). */
export const formFieldOf = (field: string): BankConnectionField | null => {
  const head = field.split('.')[0];
  return (
    (
      [
        'host',
        'port',
        'username',
        'password',
        'privateKey',
        'inbox',
        'outbox',
        'hostKeyFingerprint',
        'windows',
      ] as const
    ).find((f) => f === head) ?? null
  );
};

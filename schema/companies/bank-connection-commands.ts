// The input of a company's bank connection: by hand (today's flow) or SFTP to its bank, with the
// cut-off windows its files are sent by. A secret is write-only: left out (or empty), the stored one
// stays. Whether an SFTP connection has a secret at all depends on what is stored: the use case says.
import { z } from 'zod';
import { plainText, wellFormed } from '../shared/text-rules.js';

/**
 * 15 minutes before each of the Fed's same-day deadlines, 10:30, 14:45 and 16:45 New York time
 * (reference/ach-returns.md §5): an ODFI's own cut-offs are earlier than the Fed's.
 */
export const DEFAULT_CUTOFF_WINDOWS = ['10:15', '14:30', '16:30'] as const;
export const MAX_CUTOFF_WINDOWS = 6;

const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const IPV6 = /^(?=.*:.*:)[0-9A-Fa-f:.]{2,45}$/;
const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d$/;
/** OpenSSH's `ssh-keygen -lf`: SHA256: and the digest in base64 without its padding. */
const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

const PORT_MESSAGE = 'Port must be a number from 1 to 65535';
const FINGERPRINT_MESSAGE = 'Host key fingerprint must read SHA256:… as ssh-keygen -lf prints it';

/** Empty or absent: null. */
const absentIfEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' || v === null ? undefined : v), schema.optional());

const host = plainText(253).pipe(
  z
    .string()
    .min(1, 'Host is required')
    .refine((v) => HOST_NAME.test(v) || IPV6.test(v), 'Host must be a host name or an IP address'),
);

const port = z
  .union([z.number(), z.string().max(6, PORT_MESSAGE).regex(/^\d+$/, PORT_MESSAGE).transform(Number)])
  .pipe(z.number().int(PORT_MESSAGE).min(1, PORT_MESSAGE).max(65535, PORT_MESSAGE));

const folder = (label: string) =>
  plainText(255).pipe(
    z
      .string()
      .min(1, `${label} is required`)
      .regex(/^[\x20-\x7E]+$/, `${label} may only contain letters, digits and common symbols`)
      .refine((v) => !v.split('/').includes('..'), `${label} must not climb out with ..`),
  );

/** As typed: not trimmed (a space may be part of it), no NUL. */
const secret = (max: number, label: string) =>
  z
    .string()
    .max(max, `${label} must be at most ${max} characters`)
    .refine((v) => wellFormed(v) && !v.includes('\u0000'), `${label} contains an invalid character`);

const fingerprint = z
  .string()
  .max(100, FINGERPRINT_MESSAGE)
  .transform((v) => v.trim().replace(/=+$/, ''))
  .pipe(z.string().regex(FINGERPRINT, FINGERPRINT_MESSAGE));

const windows = z
  .array(z.string().max(10).regex(TIME_OF_DAY, 'Each cut-off must be a time of day HH:MM (00:00–23:59)'))
  .min(1, 'Give at least one cut-off window')
  .max(MAX_CUTOFF_WINDOWS, `Give at most ${MAX_CUTOFF_WINDOWS} cut-off windows`)
  .superRefine((list, ctx) => {
    for (let i = 1; i < list.length; i++) {
      if (list[i] === list[i - 1]) {
        ctx.addIssue({ code: 'custom', message: `Cut-off ${list[i]} is given twice` });
        return;
      }
      if (list[i] < list[i - 1]) {
        ctx.addIssue({ code: 'custom', message: 'Cut-off windows must be in order of the day' });
        return;
      }
    }
  });

export const BankConnectionInput = z
  .object({
    mode: z.enum(['manual', 'sftp'], { error: 'Mode must be manual or sftp' }),
    host: absentIfEmpty(host),
    port: z.preprocess((v) => (v === '' || v === null ? undefined : v), port.optional().default(22)),
    username: absentIfEmpty(plainText(100)),
    /** Write-only: absent or empty keeps the stored password (or key). */
    password: absentIfEmpty(secret(1024, 'Password')),
    /** An OpenSSH or PEM private key without a passphrase; write-only like the password. */
    privateKey: absentIfEmpty(secret(16_384, 'Private key')),
    inbox: absentIfEmpty(folder('Inbox folder')),
    outbox: absentIfEmpty(folder('Outbox folder')),
    hostKeyFingerprint: absentIfEmpty(fingerprint),
    windows: windows.optional().transform((w) => w ?? [...DEFAULT_CUTOFF_WINDOWS]),
  })
  .superRefine((c, ctx) => {
    if (c.mode !== 'sftp') return;
    const need = (field: 'host' | 'username' | 'hostKeyFingerprint', message: string) => {
      if (c[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message });
    };
    need('host', 'Host is required');
    need('username', 'Username is required');
    need('hostKeyFingerprint', 'The bank’s host key fingerprint is required (SHA256:…)');
    if (c.password !== undefined && c.privateKey !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['privateKey'],
        message: 'Give a password or a private key, not both',
      });
  })
  .transform((c) => ({ ...c, inbox: c.inbox ?? '/inbox', outbox: c.outbox ?? '/outbox' }));
export type BankConnectionInput = z.infer<typeof BankConnectionInput>;

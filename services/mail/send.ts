// Sends one mail over SMTP_URL with nodemailer, at most once per idempotency key as far as SMTP
// allows:
// 1. `mail_deliveries` has the key: the SMTP server accepted it before; nothing is sent.
// 2. Otherwise render, send, and once the server answered 250 record the key.
// The window left: a crash (or a lost database) between the server's 250 and the row resends the
// mail once, with the same Message-ID, which mail clients and most servers take for the same
// message. Two runs of one key at the same moment (a stalled job run again while the first still
// talks to the server) could both send; BullMQ runs one job id once at a time, and the SMTP
// time-outs below are far shorter than its lock, so that needs a worker frozen mid-send.
// Log lines and errors carry the key and the template, never an address.
import { createHash } from 'node:crypto';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type pg from 'pg';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/log.js';
import { findDelivery, recordDelivery } from './deliveries.js';
import type { MailRecipient } from './sealed.js';
import { type MailTemplateData, type MailTemplateName, renderTemplate } from './templates.js';

/** What sending needs of the application (a subset of AppServices). */
export interface MailDeps {
  config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'PUBLIC_URL' | 'HOST' | 'PORT'>;
  pool: pg.Pool;
  log: Logger;
}

export interface OutgoingMail<T extends MailTemplateName = MailTemplateName> {
  /** The caller's idempotency key: one key, one mail, whatever runs twice. */
  key: string;
  template: T;
  to: MailRecipient;
  data: MailTemplateData<T>;
}

export interface MailOutcome {
  status: 'sent' | 'already-sent';
  messageId: string;
}

/** A failed send, its message cleared of addresses (it reaches logs and the operations page). */
export class MailSendError extends Error {
  constructor(
    message: string,
    /** The server refused this message for good (5xx to the recipient or the content): no retry helps. */
    readonly permanent: boolean,
    readonly smtpCode: number | null,
  ) {
    super(message);
    this.name = 'MailSendError';
  }
}

/** SMTP waits, short beside BullMQ's job lock (30 s, renewed): a hung server fails the try. */
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 20_000;

const ADDRESS = /[^\s<>"'(),;:@]+@[^\s<>"'(),;:@]+/g;
/** Anything an SMTP server says may quote the recipient: addresses go. */
export const withoutAddresses = (text: string) => text.replace(ADDRESS, '[address]');

/** The domain of MAIL_FROM (`Billflow <no-reply@billflow.local>` → `billflow.local`). */
function senderDomain(from: string): string {
  const m = from.match(/@([A-Za-z0-9.-]+)>?\s*$/);
  return m ? m[1].toLowerCase() : 'billflow.local';
}

/** Deterministic Message-ID of a key: a resend is recognisably the same message. */
export function messageIdFor(key: string, from: string): string {
  const digest = createHash('sha256').update(`billflow-mail:${key}`).digest('hex').slice(0, 40);
  return `<${digest}@${senderDomain(from)}>`;
}

/** The web app's origin for links in mail (PUBLIC_URL, else where this process listens). */
export function appUrlOf(config: MailDeps['config']): string {
  return (
    config.PUBLIC_URL ?? `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.PORT}`
  );
}

function smtpOptions(url: string): SMTPTransport.Options {
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    auth: u.username
      ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) }
      : undefined,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    // nodemailer's own logger would print envelopes (addresses).
    logger: false,
  };
}

function sendError(err: unknown): MailSendError {
  const e = err as { code?: string; responseCode?: number; command?: string; message?: string };
  const code = typeof e.responseCode === 'number' ? e.responseCode : null;
  // Refused for good: the recipient or the content (a full mailbox is 4xx and is retried).
  const permanent = code !== null && code >= 500 && /^(RCPT TO|DATA)/i.test(e.command ?? '');
  const what = [e.code, code, e.command].filter(Boolean).join(' ');
  return new MailSendError(
    withoutAddresses(`SMTP send failed${what ? ` (${what})` : ''}: ${e.message ?? String(err)}`).slice(
      0,
      500,
    ),
    permanent,
    code,
  );
}

/** Sends the mail unless its key was accepted before (see the top of this file). */
export async function sendMail<T extends MailTemplateName>(
  deps: MailDeps,
  mail: OutgoingMail<T>,
): Promise<MailOutcome> {
  const { config, log } = deps;
  const messageId = messageIdFor(mail.key, config.MAIL_FROM);
  const done = await findDelivery(deps.pool, mail.key);
  if (done) {
    log.info({ mailKey: mail.key, template: mail.template }, 'mail already sent: not sent again');
    return { status: 'already-sent', messageId: done.messageId };
  }
  if (!config.SMTP_URL)
    throw new MailSendError('SMTP_URL is not set: the mail waits until it is', false, null);
  const rendered = await renderTemplate(mail.template, mail.data, { appUrl: appUrlOf(config) });
  const transport = nodemailer.createTransport(smtpOptions(config.SMTP_URL));
  let info: SMTPTransport.SentMessageInfo;
  try {
    info = await transport.sendMail({
      from: config.MAIL_FROM,
      to: mail.to.name ? { name: mail.to.name, address: mail.to.address } : mail.to.address,
      subject: rendered.subject,
      html: rendered.html,
      text: rendered.text,
      messageId,
      headers: { 'X-Billflow-Template': mail.template },
    });
  } catch (err) {
    throw sendError(err);
  } finally {
    transport.close();
  }
  if (info.rejected.length > 0 || info.accepted.length === 0)
    throw new MailSendError('SMTP send failed: the server refused the recipient', true, null);
  const smtpCode = Number.parseInt(String(info.response ?? ''), 10);
  await recordDelivery(deps.pool, {
    key: mail.key,
    template: mail.template,
    messageId,
    smtpCode: Number.isFinite(smtpCode) ? smtpCode : null,
  });
  log.info({ mailKey: mail.key, template: mail.template, messageId }, 'mail sent');
  return { status: 'sent', messageId };
}

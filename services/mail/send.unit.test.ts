// sendMail against in-process SMTP servers (the catcher, and one that refuses the recipient), with
// mail_deliveries kept in memory: the Message-ID comes from the key, a recorded key sends nothing,
// and a refusal fails for good with an error that names no address.
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpCatcher, startSmtpCatcher } from '../../tools/smtp-catcher.js';
import { type MailDeps, MailSendError, messageIdFor, sendMail, withoutAddresses } from './send.js';

const ADDRESS = 'pat.lee@vendor-side.test';

/** The two statements deliveries.ts runs, over a Map. */
function memoryPool() {
  const rows = new Map<string, { key: string; template: string; message_id: string; accepted_at: Date }>();
  const pool = {
    async query(text: string, params: unknown[]) {
      const [key, template, messageId] = params as string[];
      if (text.startsWith('SELECT')) return { rows: rows.has(key) ? [rows.get(key)] : [] };
      if (!rows.has(key)) rows.set(key, { key, template, message_id: messageId, accepted_at: new Date() });
      return { rows: [] };
    },
  };
  return { rows, pool: pool as unknown as pg.Pool };
}

const lines: string[] = [];
const log = {
  info: (o: unknown, m?: string) => lines.push(`${m} ${JSON.stringify(o)}`),
  warn: (o: unknown, m?: string) => lines.push(`${m} ${JSON.stringify(o)}`),
  error: (o: unknown, m?: string) => lines.push(`${m} ${JSON.stringify(o)}`),
};
const config = (smtpUrl: string | undefined): MailDeps['config'] => ({
  SMTP_URL: smtpUrl,
  MAIL_FROM: 'Billflow <no-reply@billflow.example>',
  PUBLIC_URL: 'https://billflow.example',
  HOST: '127.0.0.1',
  PORT: 3000,
});
const mail = (key: string) => ({
  key,
  template: 'approval-assigned' as const,
  to: { address: ADDRESS, name: 'Pat Lee' },
  data: { approvalId: 'ap-7', companyName: 'Acme', billCount: 1, amountCents: 1000 },
});

let catcher: SmtpCatcher;
let refusing: SMTPServer;
let refusingUrl: string;

beforeAll(async () => {
  catcher = await startSmtpCatcher({ smtpPort: 0 });
  refusing = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      callback(
        Object.assign(new Error(`<${address.address}>: Recipient address rejected: no such user`), {
          responseCode: 550,
        }),
      );
    },
  });
  refusing.on('error', () => {});
  await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
  refusingUrl = `smtp://127.0.0.1:${(refusing.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await catcher.stop();
  await new Promise<void>((resolve) => refusing.close(() => resolve()));
});

describe('sendMail', () => {
  it('sends with a Message-ID derived from the key, and records the key', async () => {
    const { pool, rows } = memoryPool();
    const deps = { config: config(catcher.smtpUrl), pool, log };
    const r = await sendMail(deps, mail('approval-assigned_ap-7_0'));
    const id = messageIdFor('approval-assigned_ap-7_0', 'Billflow <no-reply@billflow.example>');
    expect(id).toMatch(/^<[0-9a-f]{40}@billflow\.example>$/);
    expect(r).toEqual({ status: 'sent', messageId: id });
    const got = await catcher.waitFor((m) => m.messageId === id);
    expect(got.to).toEqual([ADDRESS]);
    expect(got.from).toContain('no-reply@billflow.example');
    expect(got.text).toContain('https://billflow.example/approvals/ap-7');
    expect(rows.get('approval-assigned_ap-7_0')?.message_id).toBe(id);
  });

  it('sends nothing for a key already recorded', async () => {
    const { pool } = memoryPool();
    const deps = { config: config(catcher.smtpUrl), pool, log };
    await sendMail(deps, mail('approval-assigned_ap-7_1'));
    const again = await sendMail(deps, mail('approval-assigned_ap-7_1'));
    expect(again.status).toBe('already-sent');
    const id = messageIdFor('approval-assigned_ap-7_1', 'Billflow <no-reply@billflow.example>');
    expect(catcher.messages().filter((m) => m.messageId === id)).toHaveLength(1);
  });

  it('fails for good when the server refuses the recipient, naming no address, recording nothing', async () => {
    const { pool, rows } = memoryPool();
    const err = await sendMail({ config: config(refusingUrl), pool, log }, mail('k-refused')).catch((e) => e);
    expect(err).toBeInstanceOf(MailSendError);
    expect(err.permanent).toBe(true);
    expect(err.smtpCode).toBe(550);
    expect(err.message).toContain('[address]');
    expect(err.message).not.toContain(ADDRESS);
    expect(rows.size).toBe(0);
  });

  it('fails for a retry when no server answers, or none is configured', async () => {
    const { pool } = memoryPool();
    const down = await sendMail({ config: config('smtp://127.0.0.1:1'), pool, log }, mail('k-down')).catch(
      (e) => e,
    );
    expect(down).toBeInstanceOf(MailSendError);
    expect(down.permanent).toBe(false);
    const unset = await sendMail({ config: config(undefined), pool, log }, mail('k-unset')).catch((e) => e);
    expect(unset.permanent).toBe(false);
    expect(unset.message).toMatch(/SMTP_URL is not set/);
  });

  it('logs the key and the template, never the address', () => {
    expect(lines.join('\n')).toContain('approval-assigned_ap-7_0');
    expect(lines.join('\n')).not.toContain(ADDRESS);
    expect(withoutAddresses('550 <a.b@c.d> and x@y.z rejected')).toBe(
      '550 <[address]> and [address] rejected',
    );
  });
});

// The SMTP catcher receives what nodemailer sends and shows it over HTTP.
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { type CaughtMessage, type SmtpCatcher, startSmtpCatcher } from './smtp-catcher.js';

let catcher: SmtpCatcher;
let inbox: string;
const transport = () =>
  nodemailer.createTransport({ host: '127.0.0.1', port: catcher.smtpPort, secure: false, ignoreTLS: true });

beforeAll(async () => {
  catcher = await startSmtpCatcher({ smtpPort: 0, httpPort: 0 });
  inbox = catcher.inboxUrl!;
});
afterAll(async () => {
  await catcher.stop();
});
beforeEach(() => catcher.clear());

it('catches a message and lists it in messages(), the JSON inbox and the HTML page', async () => {
  const waiting = catcher.waitFor((m) => m.subject === 'Bank upload confirmation');
  await transport().sendMail({
    from: 'Billflow <no-reply@billflow.local>',
    to: 'manager@client.test',
    bcc: 'audit@client.test',
    subject: 'Bank upload confirmation',
    text: 'Please confirm',
    html: '<p>Please <b>confirm</b></p>',
  });
  const m = await waiting;
  expect(m.from).toMatch(/Billflow.*<no-reply@billflow.local>/);
  expect(m.to).toEqual(['manager@client.test']);
  // Bcc shows only in the envelope, as on a real server.
  expect(m.envelope.to).toEqual(['manager@client.test', 'audit@client.test']);
  expect(m.text.trim()).toBe('Please confirm');
  expect(m.html).toContain('<b>confirm</b>');
  expect(catcher.messages().map((x) => x.id)).toEqual([m.id]);

  const json = (await (await fetch(`${inbox}/api/messages`)).json()) as CaughtMessage[];
  expect(json).toHaveLength(1);
  expect(json[0]).toMatchObject({
    id: m.id,
    subject: 'Bank upload confirmation',
    to: ['manager@client.test'],
  });
  const one = (await (await fetch(`${inbox}/api/messages/${m.id}`)).json()) as CaughtMessage;
  expect(one.html).toContain('<b>confirm</b>');

  const page = await (await fetch(`${inbox}/`)).text();
  expect(page).toContain('Bank upload confirmation');
  expect(page).toContain(`href="/messages/${m.id}"`);
  const detail = await fetch(`${inbox}/messages/${m.id}`);
  expect(detail.status).toBe(200);
  // The mail's HTML is shown only inside a sandboxed iframe, escaped into srcdoc.
  const html = await detail.text();
  expect(html).toContain('<iframe sandbox');
  expect(html).toContain('srcdoc="&lt;p&gt;Please &lt;b&gt;confirm&lt;/b&gt;&lt;/p&gt;');
  expect((await fetch(`${inbox}/messages/99999`)).status).toBe(404);
  expect((await fetch(`${inbox}/api/messages/99999`)).status).toBe(404);
});

it('lists newest first and escapes what senders control', async () => {
  const t = transport();
  await t.sendMail({ from: 'a@x.test', to: 'b@x.test', subject: 'first', text: 'one' });
  await t.sendMail({ from: 'a@x.test', to: 'b@x.test', subject: '<script>alert(1)</script>', text: 'two' });
  expect(catcher.messages().map((m) => m.subject)).toEqual(['first', '<script>alert(1)</script>']);

  const json = (await (await fetch(`${inbox}/api/messages`)).json()) as CaughtMessage[];
  expect(json.map((m) => m.subject)).toEqual(['<script>alert(1)</script>', 'first']);
  const page = await (await fetch(`${inbox}/`)).text();
  expect(page).not.toContain('<script>alert(1)</script>');
  expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  expect(page.indexOf('&lt;script&gt;')).toBeLessThan(page.indexOf('>first<'));
});

it('waitFor() finds messages already caught, and times out when none comes', async () => {
  await transport().sendMail({ from: 'a@x.test', to: 'early@x.test', subject: 'early', text: 'x' });
  const early = await catcher.waitFor((m) => m.to.includes('early@x.test'), 100);
  expect(early.subject).toBe('early');
  await expect(catcher.waitFor((m) => m.subject === 'never', 150)).rejects.toThrow(/No matching e-mail/);
});

it('clear() and DELETE /api/messages empty the inbox', async () => {
  await transport().sendMail({ from: 'a@x.test', to: 'b@x.test', subject: 'gone soon', text: 'x' });
  expect(catcher.messages()).toHaveLength(1);
  catcher.clear();
  expect(catcher.messages()).toHaveLength(0);

  await transport().sendMail({ from: 'a@x.test', to: 'b@x.test', subject: 'gone too', text: 'x' });
  expect((await fetch(`${inbox}/api/messages`, { method: 'DELETE' })).status).toBe(200);
  expect(catcher.messages()).toHaveLength(0);
});

it('keeps only the newest messages up to its limit, and runs without an inbox', async () => {
  const small = await startSmtpCatcher({ smtpPort: 0, limit: 2 });
  try {
    expect(small.inboxUrl).toBeNull();
    const t = nodemailer.createTransport({ host: '127.0.0.1', port: small.smtpPort, ignoreTLS: true });
    for (const subject of ['1', '2', '3'])
      await t.sendMail({ from: 'a@x.test', to: 'b@x.test', subject, text: 'x' });
    expect(small.messages().map((m) => m.subject)).toEqual(['2', '3']);
  } finally {
    await small.stop();
  }
});

it('keeps its messages in a file: a restart on the same file lists them, bounded by its limit', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'smtp-catcher-'));
  const file = path.join(dir, 'nested', 'mail.jsonl');
  try {
    const first = await startSmtpCatcher({ smtpPort: 0, limit: 3, file });
    const send = (c: SmtpCatcher, subject: string) =>
      nodemailer
        .createTransport({ host: '127.0.0.1', port: c.smtpPort, ignoreTLS: true })
        .sendMail({ from: 'a@x.test', to: 'b@x.test', subject, text: `body of ${subject}` });
    for (const subject of ['1', '2', '3', '4']) await send(first, subject);
    await first.stop();
    // Mail carries personal data: the file is the owner's alone.
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const second = await startSmtpCatcher({ smtpPort: 0, httpPort: 0, limit: 3, file });
    try {
      expect(second.messages().map((m) => [m.id, m.subject, m.text.trim()])).toEqual([
        ['2', '2', 'body of 2'],
        ['3', '3', 'body of 3'],
        ['4', '4', 'body of 4'],
      ]);
      const listed = (await (await fetch(`${second.inboxUrl}/api/messages`)).json()) as CaughtMessage[];
      expect(listed.map((m) => m.subject)).toEqual(['4', '3', '2']);
      expect((await fetch(`${second.inboxUrl}/messages/2`)).status).toBe(200);
      // Ids go on from the kept ones; the file, appended to, is rewritten before it holds twice the limit.
      for (const subject of ['5', '6', '7', '8', '9', '10']) await send(second, subject);
      expect(second.messages().map((m) => m.id)).toEqual(['8', '9', '10']);
    } finally {
      await second.stop();
    }
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(lines.length).toBeLessThanOrEqual(6);
    // Rewritten through a new file renamed over the old: none left beside it, and still 0600.
    expect(await readdir(path.dirname(file))).toEqual(['mail.jsonl']);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // A line cut short by a crash is skipped; a clear empties the file too.
    await writeFile(file, `${(await readFile(file, 'utf8')).trimEnd()}\n{"id":"11","recei`);
    const third = await startSmtpCatcher({ smtpPort: 0, limit: 3, file });
    try {
      expect(third.messages().map((m) => m.subject)).toEqual(['8', '9', '10']);
      await send(third, '11');
      expect(third.messages().map((m) => m.id)).toEqual(['9', '10', '11']);
      third.clear();
    } finally {
      await third.stop();
    }
    const fourth = await startSmtpCatcher({ smtpPort: 0, file });
    expect(fourth.messages()).toEqual([]);
    await fourth.stop();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it("makes its file the owner's alone at start, over a readable one or a crash's leftover", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'smtp-catcher-'));
  const file = path.join(dir, 'mail.jsonl');
  const kept: CaughtMessage = {
    id: '7',
    receivedAt: new Date(0).toISOString(),
    envelope: { from: 'a@x.test', to: ['b@x.test'] },
    from: 'a@x.test',
    to: ['b@x.test'],
    cc: [],
    subject: 'kept',
    text: 'x',
    html: null,
    messageId: null,
    attachments: [],
  };
  try {
    // A file others may read (copied in, or made by hand), and a rewrite's temporary file that a
    // crash left under this process's name, just as readable.
    await writeFile(file, `${JSON.stringify(kept)}\n`, { mode: 0o644 });
    await chmod(file, 0o644);
    const leftover = `${file}.${process.pid}.tmp`;
    await writeFile(leftover, 'half a rewrite', { mode: 0o644 });
    await chmod(leftover, 0o644);
    const c = await startSmtpCatcher({ smtpPort: 0, file });
    try {
      expect(c.messages().map((m) => [m.id, m.subject])).toEqual([['7', 'kept']]);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(await readdir(dir)).toEqual(['mail.jsonl']);
      await nodemailer
        .createTransport({ host: '127.0.0.1', port: c.smtpPort, ignoreTLS: true })
        .sendMail({ from: 'a@x.test', to: 'b@x.test', subject: 'next', text: 'x' });
    } finally {
      await c.stop();
    }
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const again = await startSmtpCatcher({ smtpPort: 0, file });
    expect(again.messages().map((m) => [m.id, m.subject])).toEqual([
      ['7', 'kept'],
      ['8', 'next'],
    ]);
    await again.stop();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it('keeps messages in memory only without a file', async () => {
  const before = catcher.messages().length;
  await transport().sendMail({ from: 'a@x.test', to: 'b@x.test', subject: 'memory', text: 'x' });
  expect(catcher.messages()).toHaveLength(before + 1);
  const other = await startSmtpCatcher({ smtpPort: 0 });
  expect(other.messages()).toEqual([]);
  await other.stop();
});

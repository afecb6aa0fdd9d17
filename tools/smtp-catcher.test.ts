// The SMTP catcher receives what nodemailer sends and shows it over HTTP.
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type SmtpCatcher, startSmtpCatcher } from './smtp-catcher.js';

let catcher: SmtpCatcher;
beforeAll(async () => {
  catcher = await startSmtpCatcher({ smtpPort: 0, httpPort: 0 });
});
afterAll(async () => {
  await catcher.stop();
});

it('catches a message and lists it in the JSON inbox and the HTML page', async () => {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: catcher.smtpPort,
    secure: false,
    ignoreTLS: true,
  });
  const waiting = catcher.waitFor((m) => m.subject === 'Bank upload confirmation');
  await transport.sendMail({
    from: 'Billflow <no-reply@billflow.local>',
    to: 'manager@client.test',
    subject: 'Bank upload confirmation',
    text: 'Please confirm',
    html: '<p>Please <b>confirm</b></p>',
  });
  const m = await waiting;
  expect(m.to).toEqual(['manager@client.test']);
  expect(m.text.trim()).toBe('Please confirm');
  expect(m.html).toContain('<b>confirm</b>');
  const json = (await (await fetch(`http://127.0.0.1:${catcher.httpPort}/api/messages`)).json()) as Array<{
    subject: string;
  }>;
  expect(json.map((x) => x.subject)).toContain('Bank upload confirmation');
  const page = await (await fetch(`http://127.0.0.1:${catcher.httpPort}/`)).text();
  expect(page).toContain('Bank upload confirmation');
  const detail = await fetch(`http://127.0.0.1:${catcher.httpPort}/messages/${m.id}`);
  expect(detail.status).toBe(200);
  expect((await fetch(`http://127.0.0.1:${catcher.httpPort}/messages/99999`)).status).toBe(404);
});

// An SMTP catcher for development and tests: accepts every message (no auth, no TLS), keeps the last
// few hundred, and shows them in a small web inbox. Nothing ever leaves the machine. Given a file
// (as `npm start` gives .local/smtp-catcher.jsonl), it keeps them there too, so a restart finds the
// earlier mails in the inbox; without one (tests), in memory only. Mail carries personal data: the
// file is the owner's alone (0600).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { appendFile, open, rename, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type AddressObject, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CaughtMessage {
  /** Short sequential id, used in the inbox URLs. */
  id: string;
  receivedAt: string;
  /** SMTP envelope (MAIL FROM / RCPT TO): where the message was really delivered. */
  envelope: { from: string | null; to: string[] };
  /** Header From, as text (`Name <addr>`). */
  from: string;
  /** Header To addresses, falling back to the envelope recipients. */
  to: string[];
  cc: string[];
  subject: string;
  text: string;
  html: string | null;
  messageId: string | null;
  attachments: Array<{ filename: string | null; contentType: string; size: number }>;
}

export interface SmtpCatcherOptions {
  smtpPort: number;
  /** Port of the web inbox; omit for no inbox, 0 for any free port. */
  httpPort?: number;
  host?: string;
  /** How many messages to keep (oldest dropped first). */
  limit?: number;
  /**
   * JSON lines, one message a line, oldest first: read at start, appended to as messages come, and
   * rewritten to the newest `limit` once it holds twice as many (a new file, mode 0600, flushed to
   * disk, then renamed over the old one: a crash leaves one or the other whole). Omit to keep
   * messages in memory only.
   */
  file?: string;
}

export interface SmtpCatcher {
  /** Bound ports (useful when 0 was asked for). */
  smtpPort: number;
  httpPort: number | null;
  /** `smtp://host:port`, ready for SMTP_URL. */
  smtpUrl: string;
  inboxUrl: string | null;
  /** Messages in arrival order, oldest first. */
  messages(): CaughtMessage[];
  clear(): void;
  /** First message (already caught or still to come) matching the predicate. */
  waitFor(predicate: (m: CaughtMessage) => boolean, timeoutMs?: number): Promise<CaughtMessage>;
  stop(): Promise<void>;
}

const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** The messages kept in a file, oldest first: the newest `limit`; a torn or foreign line is skipped. */
function readKept(file: string, limit: number): CaughtMessage[] {
  if (!existsSync(file)) return [];
  const kept: CaughtMessage[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const m = JSON.parse(line) as CaughtMessage;
      if (typeof m?.id === 'string' && typeof m.receivedAt === 'string') kept.push(m);
    } catch {
      // A line cut short by a crash while it was written: the messages before it still count.
    }
  }
  return kept.slice(-limit);
}

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  const list = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return list.flatMap((a) => a.value.map((v) => v.address ?? '').filter(Boolean));
}

function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

const STYLE =
  'body{font:14px system-ui,sans-serif;margin:2rem;color:#111}table{border-collapse:collapse;width:100%}' +
  'th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #ddd;vertical-align:top}' +
  'iframe{width:100%;height:70vh;border:1px solid #ccc}pre{white-space:pre-wrap}dt{font-weight:600}';

function page(title: string, body: string, refresh = false): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>${
    refresh ? '<meta http-equiv="refresh" content="5">' : ''
  }<style>${STYLE}</style></head><body>${body}</body></html>`;
}

function listPage(messages: CaughtMessage[]): string {
  const rows = messages
    .map(
      (m) =>
        `<tr><td>${escapeHtml(new Date(m.receivedAt).toLocaleString())}</td><td>${escapeHtml(m.from)}</td>` +
        `<td>${escapeHtml(m.to.join(', '))}</td><td><a href="/messages/${m.id}">${escapeHtml(
          m.subject || '(no subject)',
        )}</a></td></tr>`,
    )
    .join('');
  return page(
    'Billflow mail inbox',
    `<h1>Mail inbox</h1><p>${messages.length} message(s), newest first. This page refreshes every 5 s.</p>` +
      `<table><thead><tr><th>Time</th><th>From</th><th>To</th><th>Subject</th></tr></thead><tbody>${rows}</tbody></table>`,
    true,
  );
}

function messagePage(m: CaughtMessage): string {
  // The mail's HTML runs in a sandbox without scripts, so a message cannot act on the inbox.
  const body = m.html
    ? `<iframe sandbox title="Message body" srcdoc="${escapeHtml(m.html)}"></iframe>`
    : `<pre>${escapeHtml(m.text)}</pre>`;
  const attachments = m.attachments.length
    ? `<dt>Attachments</dt><dd>${escapeHtml(m.attachments.map((a) => `${a.filename ?? '(unnamed)'} (${a.contentType}, ${a.size} B)`).join(', '))}</dd>`
    : '';
  return page(
    m.subject || '(no subject)',
    `<p><a href="/">← Inbox</a></p><h1>${escapeHtml(m.subject || '(no subject)')}</h1><dl>` +
      `<dt>From</dt><dd>${escapeHtml(m.from)}</dd><dt>To</dt><dd>${escapeHtml(m.to.join(', '))}</dd>` +
      `<dt>Received</dt><dd>${escapeHtml(m.receivedAt)}</dd>${attachments}</dl>${body}` +
      (m.html ? `<details><summary>Plain text</summary><pre>${escapeHtml(m.text)}</pre></details>` : ''),
  );
}

export async function startSmtpCatcher(options: SmtpCatcherOptions): Promise<SmtpCatcher> {
  const host = options.host ?? '127.0.0.1';
  const limit = options.limit ?? 500;
  const file = options.file;
  let store: CaughtMessage[] = file ? readKept(file, limit) : [];
  // Ids go on from the kept messages, so an inbox link from before a restart still names its mail.
  let nextId = store.reduce((max, m) => Math.max(max, Number(m.id) || 0), 0) + 1;
  // The file's writes, one after another; the file's line count, to know when to rewrite it; the
  // newest id in it, so that a message a rewrite already wrote is not appended again; whether a write
  // failed (an append cut short, e.g. a full disk, would glue the next line onto its torn end).
  let writes: Promise<void> = Promise.resolve();
  let linesInFile = store.length;
  let writtenUpTo = nextId - 1;
  let failed = false;
  const persist = (write: () => Promise<void>) => {
    if (!file) return Promise.resolve();
    writes = writes
      .then(() => (failed ? rewrite() : write()))
      .catch((err: Error) => {
        failed = true;
        process.stderr.write(`smtp catcher: could not write ${file}: ${err.message}\n`);
      });
    return writes;
  };
  /**
   * The file rewritten with the messages kept now: a new file, the owner's alone whatever a crash
   * left under its name, flushed to disk before it is renamed over the old one.
   */
  const rewrite = async () => {
    const kept = store;
    const tmp = `${file}.${process.pid}.tmp`;
    await rm(tmp, { force: true });
    const handle = await open(tmp, 'wx', 0o600);
    try {
      await handle.writeFile(kept.map((m) => `${JSON.stringify(m)}\n`).join(''));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file!);
    failed = false;
    linesInFile = kept.length;
    writtenUpTo = kept.reduce((max, m) => Math.max(max, Number(m.id) || 0), writtenUpTo);
  };
  if (file) {
    mkdirSync(path.dirname(file), { recursive: true });
    // The file as read: no lines past the limit, none torn.
    await persist(rewrite);
  }
  const waiters = new Set<{
    predicate: (m: CaughtMessage) => boolean;
    resolve: (m: CaughtMessage) => void;
  }>();

  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    size: MAX_MESSAGE_BYTES,
    closeTimeout: 1000,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          if ((stream as { sizeExceeded?: boolean }).sizeExceeded) {
            callback(Object.assign(new Error('Message too large'), { responseCode: 552 }));
            return;
          }
          const envelopeTo = session.envelope.rcptTo.map((r) => r.address);
          const mailFrom = session.envelope.mailFrom;
          const headerTo = addresses(parsed.to);
          const message: CaughtMessage = {
            id: String(nextId++),
            receivedAt: new Date().toISOString(),
            envelope: { from: mailFrom ? mailFrom.address : null, to: envelopeTo },
            from: parsed.from?.text ?? (mailFrom ? mailFrom.address : ''),
            to: headerTo.length ? headerTo : envelopeTo,
            cc: addresses(parsed.cc),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: parsed.html || null,
            messageId: parsed.messageId ?? null,
            attachments: parsed.attachments.map((a) => ({
              filename: a.filename ?? null,
              contentType: a.contentType,
              size: a.size,
            })),
          };
          store.push(message);
          if (store.length > limit) store = store.slice(store.length - limit);
          for (const w of waiters) if (w.predicate(message)) w.resolve(message);
          // Accepted once kept: appended, or the file rewritten when it holds twice the limit.
          return persist(async () => {
            // Written by a rewrite already, or cleared or dropped for the limit meanwhile.
            if (Number(message.id) <= writtenUpTo || !store.includes(message)) return;
            if (linesInFile + 1 > 2 * limit) return rewrite();
            await appendFile(file!, `${JSON.stringify(message)}\n`, { mode: 0o600 });
            linesInFile++;
            writtenUpTo = Number(message.id);
          }).then(() => callback());
        })
        .catch((err: Error) => callback(err));
    },
  });
  // Connection-level errors (a client hanging up) must not crash the host process.
  smtp.on('error', () => {});

  await new Promise<void>((resolve, reject) => {
    smtp.server.once('error', reject);
    smtp.listen(options.smtpPort, host, () => {
      smtp.server.off('error', reject);
      resolve();
    });
  });
  const smtpPort = (smtp.server.address() as AddressInfo).port;

  const api = {
    messages: () => [...store],
    clear: () => {
      store = [];
      void persist(rewrite);
    },
  };

  let web: http.Server | null = null;
  if (options.httpPort !== undefined) {
    web = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://inbox');
      const send = (status: number, type: string, body: string) => {
        res.writeHead(status, {
          'content-type': `${type}; charset=utf-8`,
          'cache-control': 'no-store',
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src * data:",
        });
        res.end(body);
      };
      const newestFirst = () => [...store].reverse();
      const byId = (id: string) => store.find((m) => m.id === id);
      const one = url.pathname.match(/^\/(api\/)?messages\/([^/]+)$/);
      if (req.method === 'GET' && url.pathname === '/')
        return send(200, 'text/html', listPage(newestFirst()));
      if (req.method === 'GET' && url.pathname === '/api/messages') {
        return send(200, 'application/json', JSON.stringify(newestFirst()));
      }
      if (req.method === 'DELETE' && url.pathname === '/api/messages') {
        api.clear();
        return send(200, 'application/json', '{"ok":true}');
      }
      if (req.method === 'GET' && one) {
        const m = byId(decodeURIComponent(one[2]));
        if (one[1])
          return m ? send(200, 'application/json', JSON.stringify(m)) : send(404, 'application/json', '{}');
        return m
          ? send(200, 'text/html', messagePage(m))
          : send(404, 'text/html', page('Not found', 'No such message.'));
      }
      send(404, 'text/plain', 'Not found');
    });
    const server = web;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) => {
        smtp.close(() => {});
        reject(err);
      });
      server.listen(options.httpPort, host, () => resolve());
    });
  }
  const httpPort = web ? (web.address() as AddressInfo).port : null;
  // Brackets keep an IPv6 host usable in a URL.
  const urlHost = host.includes(':') ? `[${host}]` : host;

  return {
    smtpPort,
    httpPort,
    smtpUrl: `smtp://${urlHost}:${smtpPort}`,
    inboxUrl: httpPort === null ? null : `http://${urlHost}:${httpPort}`,
    ...api,
    waitFor(predicate, timeoutMs = 10_000) {
      const found = store.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = {
          predicate,
          resolve: (m: CaughtMessage) => {
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve(m);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`No matching e-mail within ${timeoutMs} ms (${store.length} caught)`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    async stop() {
      web?.closeAllConnections();
      await Promise.all([
        new Promise<void>((resolve) => smtp.close(() => resolve())),
        web ? new Promise<void>((resolve) => web.close(() => resolve())) : Promise.resolve(),
      ]);
      await writes;
    },
  };
}

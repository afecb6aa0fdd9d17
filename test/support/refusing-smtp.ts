// A real SMTP server for tests of mail that fails: it refuses the addresses in `refused` for good
// (550 at RCPT TO, as a mailbox that does not exist) and takes every other mail.
import type { Readable } from 'node:stream';
import { SMTPServer } from 'smtp-server';

/** An SMTP server that refuses the addresses in `refused` for good and takes every other mail. */
export function refusingSmtp() {
  const refused = new Set<string>();
  const delivered: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onRcptTo(address, _session, callback) {
      if (refused.has(address.address.toLowerCase())) {
        const err = Object.assign(new Error(`<${address.address}>: Recipient address rejected`), {
          responseCode: 550,
        });
        return callback(err);
      }
      callback();
    },
    onData(stream: Readable, session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        delivered.push(...session.envelope.rcptTo.map((r) => r.address.toLowerCase()));
        callback();
      });
    },
  });
  return {
    refused,
    delivered,
    async listen(): Promise<number> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
      return (server.server.address() as { port: number }).port;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

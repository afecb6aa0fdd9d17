// The bank sandbox: the ODFI as Billflow meets it, a real SFTP server (ssh2's Server) where the
// originator uploads NACHA files into /inbox and fetches the bank's acknowledgements, rejections,
// returns and notifications of change from /outbox, plus test hooks over HTTP under /__bank.
import { timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import Fastify from 'fastify';
import ssh2, { type Connection, type ParsedKey, type PublicKeyAuthContext } from 'ssh2';
import { Bank } from './bank.js';
import { registerBankHooks } from './hooks.js';
import { serveSftp } from './sftp.js';
import { BankState } from './state.js';
import type { BankSandbox, BankSandboxOptions, BankUser } from './types.js';

// ssh2 is CommonJS: its parts come from the default export.
const { Server, utils } = ssh2;

export type { AnswerRule, BankAnswer, BankSandbox, BankSandboxOptions, BankUser } from './types.js';

const sameSecret = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

function keyMatches(user: BankUser, ctx: PublicKeyAuthContext): boolean {
  if (!user.publicKey) return false;
  const parsed = utils.parseKey(user.publicKey);
  if (parsed instanceof Error) return false;
  const key = (Array.isArray(parsed) ? parsed[0] : parsed) as ParsedKey;
  if (ctx.key.algo !== key.type || !ctx.key.data.equals(key.getPublicSSH())) return false;
  // Without a signature the client only asks whether the key would do.
  return !ctx.signature || !ctx.blob || key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true;
}

export async function startBankSandbox(options: BankSandboxOptions): Promise<BankSandbox> {
  const host = options.host ?? '127.0.0.1';
  const state = new BankState(options);
  const bank = new Bank(state);
  const connections = new Set<Connection>();

  const onConnection = (conn: Connection) => {
    connections.add(conn);
    let user: BankUser | null = null;
    conn.on('authentication', (ctx) => {
      const candidates = state.users.filter((u) => u.username === ctx.username);
      const found =
        ctx.method === 'password'
          ? candidates.find((u) => u.password !== undefined && sameSecret(u.password, ctx.password))
          : ctx.method === 'publickey'
            ? candidates.find((u) => keyMatches(u, ctx))
            : undefined;
      if (!found) return ctx.reject(['password', 'publickey']);
      if (ctx.method === 'publickey' && !ctx.signature) return ctx.accept();
      user = found;
      ctx.accept();
    });
    conn.on('ready', () => {
      conn.on('session', (accept) => {
        const session = accept();
        session.on('sftp', (acceptSftp) => {
          if (!user) return;
          state.ensureFolders(user.routing);
          const ended = serveSftp(acceptSftp(), {
            routing: user.routing,
            state,
            bank,
            drop: () => conn.end(),
          });
          conn.once('close', ended);
        });
        // No shell and no commands: this bank speaks SFTP only.
        session.on('exec', (_accept, reject) => reject());
        session.on('shell', (_accept, reject) => reject());
        session.on('pty', (_accept, reject) => reject?.());
      });
    });
    conn.on('error', () => {});
    conn.on('close', () => connections.delete(conn));
  };

  // The host key may change under a running server (rotate-host-key): each connection meets the
  // ssh2 Server made for the key of the moment.
  let ssh = new Server({ hostKeys: [state.hostKey] }, onConnection);
  const rotateHostKey = () => {
    state.rotateHostKey();
    ssh = new Server({ hostKeys: [state.hostKey] }, onConnection);
    return state.hostKeyFingerprint();
  };
  const sockets = new Set<net.Socket>();
  const listener = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    ssh.injectSocket(socket);
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(options.sftpPort ?? 0, host, () => resolve());
  });

  const hooks = Fastify({ logger: false, bodyLimit: 1_048_576 });
  registerBankHooks(hooks, { state, bank, rotateHostKey });
  await hooks.listen({ port: options.hooksPort ?? 0, host });
  bank.arm();

  const sftpPort = (listener.address() as net.AddressInfo).port;
  const hooksPort = (hooks.server.address() as net.AddressInfo).port;
  return {
    sftpPort,
    hooksPort,
    hooksUrl: `http://${host}:${hooksPort}`,
    hostKeyFingerprint: () => state.hostKeyFingerprint(),
    close: async () => {
      bank.stop();
      for (const c of connections) c.end();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
      await hooks.close();
    },
  };
}

// The client's address, for the per-address sign-in limits. Behind a proxy the socket's peer is the
// proxy, so TRUST_PROXY says which hops to believe (as Fastify's trustProxy does for HTTP requests):
// unset or 'false' trusts none, 'true' all, a number that many hops, otherwise addresses and CIDRs
// ('loopback', '10.0.0.0/8', …). A WebSocket upgrade is a bare Node request, so its address is
// worked out here the same way (@fastify/proxy-addr, what Fastify itself uses).
import type { IncomingMessage } from 'node:http';
import proxyaddr from '@fastify/proxy-addr';

type Rule = boolean | string | ((addr: string, hop: number) => boolean);

/** Fastify's `trustProxy` from TRUST_PROXY (a list stays a comma-separated string, as Fastify takes it). */
export function trustProxyOption(value: string | undefined): Rule {
  const v = (value ?? '').trim();
  if (v === '' || v === 'false') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    return (_addr, hop) => hop < hops;
  }
  return v;
}

export function socketAddress(req: IncomingMessage, setting: string | undefined): string | null {
  const trust = trustProxyOption(setting);
  const peer = req.socket.remoteAddress ?? null;
  if (trust === false || !peer) return peer;
  const rule =
    trust === true
      ? () => true
      : typeof trust === 'function'
        ? trust
        : proxyaddr.compile(
            trust
              .split(',')
              .map((a) => a.trim())
              .filter(Boolean),
          );
  return proxyaddr(req, rule);
}

#!/usr/bin/env node
// Checks a Billflow audit bundle (`npm run audit -- export`) on its own: Node's built-ins only, no
// Billflow code, so an auditor can read all of it. Usage:
//
//   node audit-verifier.mjs <bundle.json> <published anchors file (.jsonl)>
//
// It checks that
//   1. each event's stored content gives its digest, and the digests chain from version 1
//      (hash_n = SHA-256(hash_{n-1} ‖ version as 8 bytes big-endian ‖ digest_n)) to the hash it carries;
//   2. each event's hash, with its Merkle audit path (RFC 6962: leaf = SHA-256(0x00 ‖ hash),
//      node = SHA-256(0x01 ‖ left ‖ right)), gives the root of the anchor it names;
//   3. each anchor of the bundle is, field for field, a line of the published file, whose lines chain
//      one to the next and each give their own digest.
// Exit status 0 when all holds; 1 with a line per failure otherwise; 2 when the input cannot be read.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const sha256 = (...parts) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** RFC 8785 canonical JSON: keys sorted, no whitespace, ECMAScript number and string forms. */
function canonical(value) {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('not a finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : canonical(v))).join(',')}]`;
  const keys = Object.keys(value)
    .filter((k) => value[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
}

function eventDigest(e) {
  const content = {
    id: e.id,
    streamId: e.streamId,
    type: e.type,
    schemaVersion: e.schemaVersion,
    data: e.data ?? null,
    metadata: e.metadata ?? {},
  };
  return sha256(canonical(content));
}

function chainHash(previous, version, digest) {
  const v = Buffer.alloc(8);
  v.writeBigInt64BE(BigInt(version));
  return sha256(previous ?? Buffer.alloc(0), v, digest);
}

const leafHash = (hash) => sha256(Buffer.from([0]), hash);
const nodeHash = (left, right) => sha256(Buffer.from([1]), left, right);

/** RFC 9162 §2.1.3.2: the root an audit path gives, or null when it cannot fit a tree of `size`. */
function rootFromPath(hash, index, size, path) {
  if (!Number.isInteger(index) || !Number.isInteger(size) || index < 0 || index >= size) return null;
  let fn = index;
  let sn = size - 1;
  let r = leafHash(hash);
  for (const p of path) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else r = nodeHash(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : null;
}

const headsDigest = (heads) => sha256(JSON.stringify(heads)).toString('hex');

/** A version-2 anchor's digest (services/eventstore/anchors.ts writes the same). */
function anchorDigest(a) {
  const fields = [
    a.seq,
    a.previous,
    a.firstPosition,
    a.lastPosition,
    a.eventCount,
    a.root,
    headsDigest(a.heads ?? []),
  ];
  return sha256(`billflow-anchor/2\n${JSON.stringify(fields)}`).toString('hex');
}

const FIELDS = [
  'seq',
  'version',
  'firstPosition',
  'lastPosition',
  'eventCount',
  'root',
  'previous',
  'digest',
];

export function verifyBundle(bundle, publishedLines) {
  const failures = [];
  const fail = (where, what) => failures.push(`${where}: ${what}`);

  // 3. The published file: each line's digest (version 2) and its link to the line before.
  const published = new Map();
  let prior = null;
  for (const a of publishedLines) {
    if (published.has(a.seq)) {
      if (JSON.stringify(published.get(a.seq)) !== JSON.stringify(a))
        fail(`published anchor ${a.seq}`, 'two different lines');
      continue;
    }
    if (prior && a.seq !== prior.seq + 1) fail(`published anchor ${prior.seq + 1}`, 'missing from the file');
    if ((a.previous ?? null) !== (prior?.digest ?? null))
      fail(`published anchor ${a.seq}`, 'does not chain to the line before');
    if (a.version === 2 && anchorDigest(a) !== a.digest)
      fail(`published anchor ${a.seq}`, 'its fields do not give its digest');
    published.set(a.seq, a);
    prior = a;
  }
  const anchors = new Map();
  for (const a of bundle.anchors ?? []) {
    const p = published.get(a.seq);
    if (!p) fail(`anchor ${a.seq}`, 'not in the published file');
    else if (
      FIELDS.some((f) => (a[f] ?? null) !== (p[f] ?? null)) ||
      JSON.stringify(a.heads) !== JSON.stringify(p.heads)
    )
      fail(`anchor ${a.seq}`, 'differs from the published one');
    if (a.version !== 2)
      fail(`anchor ${a.seq}`, 'is not a Merkle anchor (version 2): its events cannot be proved one by one');
    else if (anchorDigest(a) !== a.digest) fail(`anchor ${a.seq}`, 'its fields do not give its digest');
    anchors.set(a.seq, a);
  }

  // 1. and 2. Each stream's events, from version 1.
  const streams = new Map();
  for (const e of bundle.events ?? []) streams.set(e.streamId, [...(streams.get(e.streamId) ?? []), e]);
  for (const [streamId, events] of streams) {
    let previous = null;
    events.sort((a, b) => a.version - b.version);
    events.forEach((e, i) => {
      const where = `stream ${streamId} version ${e.version}`;
      if (e.version !== i + 1) {
        fail(where, `expected version ${i + 1}: the stream is not whole`);
        previous = null;
      }
      let hash;
      try {
        hash = chainHash(previous, e.version, eventDigest(e));
      } catch (err) {
        fail(where, `its content cannot be read (${err.message})`);
        return;
      }
      if (hash.toString('hex') !== e.hash)
        fail(where, `${e.type}: its content or chain does not give its hash`);
      previous = Buffer.from(e.hash, 'hex');
      const a = anchors.get(e.proof?.anchor);
      if (!a) {
        fail(where, `names anchor ${e.proof?.anchor}, which the bundle does not hold`);
        return;
      }
      const root = rootFromPath(
        Buffer.from(e.hash, 'hex'),
        e.proof.leafIndex,
        a.eventCount,
        (e.proof.path ?? []).map((p) => Buffer.from(p, 'hex')),
      );
      if (!root || root.toString('hex') !== a.root)
        fail(where, `its audit path does not lead to anchor ${a.seq}'s root`);
    });
  }
  if ((bundle.events ?? []).length === 0) fail('bundle', 'holds no events');
  return failures;
}

function main(argv) {
  if (argv.length < 2) {
    console.error('usage: node audit-verifier.mjs <bundle.json> <published anchors file>');
    return 2;
  }
  let bundle;
  let lines;
  try {
    bundle = JSON.parse(readFileSync(argv[0], 'utf8'));
    lines = readFileSync(argv[1], 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));
  } catch (err) {
    console.error(`cannot read the input: ${err.message}`);
    return 2;
  }
  const failures = verifyBundle(bundle, lines);
  for (const f of failures) console.log(`FAILED  ${f}`);
  console.log(
    failures.length === 0
      ? `OK: ${bundle.events.length} events of approval ${bundle.approvalId} chain, and each is under a published anchor`
      : `${failures.length} failure(s): the bundle does not prove its events.`,
  );
  return failures.length === 0 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main(process.argv.slice(2));

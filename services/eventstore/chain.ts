// Tamper evidence (docs/decisions/0005-hash-chain-and-anchors.md). Every stored event
// carries a hash that chains to the previous event of its stream:
//
//   digest_n = SHA-256(canonical({ id, streamId, type, schemaVersion, data, metadata }))
//   hash_n   = SHA-256(hash_{n-1} ‖ version_n as 8 bytes big-endian ‖ digest_n)   (hash_0 = empty)
//
// `canonical` is RFC 8785 (JCS: sorted keys, no whitespace, ECMAScript numbers), so the same event
// gives the same bytes however jsonb hands it back. `data` is the stored form: personal fields
// sealed, so forgetting a subject leaves every hash verifiable. The writer computes the digest; the
// Postgres adapter chains it in the database as it inserts (the stream's previous row is known only
// there, under the stream's append lock), the KurrentDB adapter in its append.
import { createHash, hash } from 'node:crypto';

export interface ChainedContent {
  id: string;
  streamId: string;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: unknown;
}

/** No lone surrogate (String.prototype.isWellFormed: Node 20 has it; TypeScript's ES2023 lib not). */
const wellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Keys as JSON text, checked once: events repeat a few dozen field names (bounded for odd input). */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_MAX = 10_000;
function quoteKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    if (!wellFormed(key)) throw new Error('Lone surrogate is not allowed');
    quoted = JSON.stringify(key);
    if (quotedKeys.size < QUOTED_KEYS_MAX) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/**
 * RFC 8785 canonical JSON, byte for byte what the `canonicalize` package (4.0) writes and refusing
 * what it refuses (NaN, infinities, lone surrogates, cycles), in a fraction of its time: it checked
 * each string for lone surrogates by hand and serialised each key through itself, 25 µs an event,
 * most of a CSV import's digest cost. Keys are quoted once and sorted only when they are not in order
 * already (11 → 7.6 µs for a vendor's bank-details event). chain.unit.test.ts holds the two equal
 * over arbitrary JSON values.
 */
export function canonicalJson(value: unknown, seen: Set<object> = new Set()): string {
  switch (typeof value) {
    case 'string':
      if (!wellFormed(value)) throw new Error('Lone surrogate is not allowed');
      return JSON.stringify(value);
    case 'number':
      if (Number.isNaN(value)) throw new Error('NaN is not allowed');
      if (!Number.isFinite(value)) throw new Error('Infinity is not allowed');
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      break;
    default:
      return JSON.stringify(value);
  }
  if (seen.has(value)) throw new Error('Circular reference detected');
  seen.add(value);
  let result: string;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    result = canonicalJson((value as { toJSON(): unknown }).toJSON(), seen);
  } else if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      if (i > 0) out += ',';
      out += canonicalJson(v === undefined || typeof v === 'symbol' ? null : v, seen);
    }
    result = `${out}]`;
  } else {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    for (let i = 1; i < keys.length; i++)
      if (keys[i - 1] > keys[i]) {
        keys.sort();
        break;
      }
    let out = '{';
    let first = true;
    for (const key of keys) {
      const v = record[key];
      if (v === undefined || typeof v === 'symbol') continue;
      out += `${first ? '' : ','}${quoteKey(key)}:${canonicalJson(v, seen)}`;
      first = false;
    }
    result = `${out}}`;
  }
  seen.delete(value);
  return result;
}

/**
 * The canonical text of an event's content from its parts, `data` and `metadata` already canonical:
 * the bytes canonicalJson gives the whole object (its keys in order: data, id, metadata,
 * schemaVersion, streamId, type). The store writes data and metadata in this canonical form, so a
 * verifier hashes the stored text as it comes, without parsing it (chain.unit.test.ts holds the two
 * equal); a text that is not canonical (an event written before) gives another digest, and the
 * verifier then parses it (verify.ts).
 */
/** Ids, stream ids and type names are plain ASCII: quoted as they are, as JSON.stringify would. */
const PLAIN = /^[\w\-:.@/+=]*$/;
const quoted = (s: string) => (PLAIN.test(s) ? `"${s}"` : canonicalJson(s));

export function contentText(
  id: string,
  streamId: string,
  type: string,
  schemaVersion: number,
  data: string,
  metadata: string,
): string {
  return `{"data":${data},"id":${quoted(id)},"metadata":${metadata},"schemaVersion":${canonicalJson(schemaVersion)},"streamId":${quoted(streamId)},"type":${quoted(type)}}`;
}

export const sha256 = (text: string | Buffer): Buffer => hash('sha256', text, 'buffer');

/** An event's digest and the canonical texts of its data and metadata, as the store writes them. */
export function eventParts(e: ChainedContent): { digest: Buffer; data: string; metadata: string } {
  const data = canonicalJson(e.data ?? null);
  const metadata = canonicalJson(e.metadata ?? {});
  // An id, stream, type or version missing (never from the store) takes the whole object's rule.
  const whole =
    typeof e.id !== 'string' ||
    typeof e.streamId !== 'string' ||
    typeof e.type !== 'string' ||
    typeof e.schemaVersion !== 'number';
  const text = whole
    ? canonicalJson({
        id: e.id,
        streamId: e.streamId,
        type: e.type,
        schemaVersion: e.schemaVersion,
        data: e.data ?? null,
        metadata: e.metadata ?? {},
      })
    : contentText(e.id, e.streamId, e.type, e.schemaVersion, data, metadata);
  return { digest: sha256(text ?? ''), data, metadata };
}

export const eventDigest = (e: ChainedContent): Buffer => eventParts(e).digest;

/** One buffer for the chain's input: hashing it whole is a third faster than a hash object. */
const chainInput = Buffer.alloc(32 + 8 + 32);

export function chainHash(previous: Buffer | null, version: number, digest: Buffer): Buffer {
  // Previous hash and digest are 32 bytes when the store wrote them; anything else (an edited row)
  // takes the general path, so the hash is always of exactly what was given.
  if ((previous === null || previous.length === 32) && digest.length === 32) {
    const p = previous ? 32 : 0;
    if (previous) previous.copy(chainInput, 0);
    chainInput.writeBigInt64BE(BigInt(version), p);
    digest.copy(chainInput, p + 8);
    return sha256(chainInput.subarray(0, p + 40));
  }
  const v = Buffer.alloc(8);
  v.writeBigInt64BE(BigInt(version));
  return sha256(Buffer.concat([previous ?? Buffer.alloc(0), v, digest]));
}

/** One anchor's digest: the previous anchor's, then every event hash of its range, in log order. */
export function anchorDigest(previous: Buffer | null, hashes: Iterable<Buffer>): Buffer {
  const h = createHash('sha256').update(previous ?? Buffer.alloc(0));
  for (const x of hashes) h.update(x);
  return h.digest();
}

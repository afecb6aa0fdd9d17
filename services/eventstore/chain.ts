// Tamper evidence (issue 9, shared/reference/privacy-and-tamper-evidence.md). Every stored event
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
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export interface ChainedContent {
  id: string;
  streamId: string;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: unknown;
}

export function eventDigest(e: ChainedContent): Buffer {
  const text = canonicalize({
    id: e.id,
    streamId: e.streamId,
    type: e.type,
    schemaVersion: e.schemaVersion,
    data: e.data ?? null,
    metadata: e.metadata ?? {},
  });
  return createHash('sha256')
    .update(text ?? '')
    .digest();
}

export function chainHash(previous: Buffer | null, version: number, digest: Buffer): Buffer {
  const v = Buffer.alloc(8);
  v.writeBigInt64BE(BigInt(version));
  return createHash('sha256')
    .update(previous ?? Buffer.alloc(0))
    .update(v)
    .update(digest)
    .digest();
}

/** One anchor's digest: the previous anchor's, then every event hash of its range, in log order. */
export function anchorDigest(previous: Buffer | null, hashes: Iterable<Buffer>): Buffer {
  const h = createHash('sha256').update(previous ?? Buffer.alloc(0));
  for (const x of hashes) h.update(x);
  return h.digest();
}

// The digest's canonical JSON must stay byte for byte what the `canonicalize` package wrote when the
// log's events were hashed (a verifier recomputes their digests): the two compared over arbitrary
// JSON values, and on the inputs the package refuses.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, chainHash, contentText, eventDigest, eventParts, sha256 } from './chain.js';

const refusal = (f: () => unknown) => {
  try {
    f();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
};

describe('canonicalJson', () => {
  it('writes what the canonicalize package writes, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        expect(canonicalJson(v)).toBe(canonicalize(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes the same for full-Unicode keys and strings, undefined members, dates and sparse arrays', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ unit: 'grapheme' }),
          fc.oneof(
            fc.string({ unit: 'binary' }).filter((s) => (s as any).isWellFormed()),
            fc.double({ noNaN: true, noDefaultInfinity: true }),
            fc.constant(undefined),
            fc.date({ noInvalidDate: true }),
            fc.array(fc.oneof(fc.integer(), fc.constant(undefined))),
          ),
        ),
        (v) => {
          expect(canonicalJson(v)).toBe(canonicalize(v));
        },
      ),
      { numRuns: 1000 },
    );
    expect(canonicalJson({ b: -0, a: 1e21, c: 5e-7 })).toBe(canonicalize({ b: -0, a: 1e21, c: 5e-7 }));
  });

  it('refuses what the package refuses', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, '\ud800', { '\udc00': 1 }, ['x\ud834'], cycle])
      expect(refusal(() => canonicalJson(bad))).toBe(refusal(() => canonicalize(bad)));
  });

  it('gives an event the digest it had: sha-256 over the canonical text', () => {
    const e = {
      id: '2f1c5f0e-8a8e-4a55-9e43-0d7b7f1f2a10',
      streamId: 'vendor-7',
      type: 'VendorBankingUpdated',
      schemaVersion: 2,
      data: { vendorId: 7, pii: { k: 'vendor-7', iv: 'aXY=', ct: 'Y3Q=', f: ['accountNumber'] } },
      metadata: { userId: '1', correlationId: 'c' },
    };
    expect(eventDigest(e).toString('hex')).toBe(createHash('sha256').update(canonicalize(e)!).digest('hex'));
  });
});

describe('contentText', () => {
  it('gives the canonical text of the whole event from its parts, for any data and metadata', () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.string(),
        fc.string(),
        fc.integer({ min: 0, max: 1000 }),
        fc.jsonValue({ maxDepth: 5 }),
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
        (id, streamId, type, schemaVersion, data, metadata) => {
          const whole = canonicalize({ id, streamId, type, schemaVersion, data, metadata });
          const parts = eventParts({ id, streamId, type, schemaVersion, data, metadata });
          expect(contentText(id, streamId, type, schemaVersion, parts.data, parts.metadata)).toBe(whole);
          expect(parts.digest.toString('hex')).toBe(createHash('sha256').update(whole!).digest('hex'));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('gives another digest for a text that is not canonical, so the verifier parses it', () => {
    const e = { id: 'a', streamId: 's', type: 't', schemaVersion: 1, data: { b: 1, a: 2 }, metadata: {} };
    const stored = sha256(contentText('a', 's', 't', 1, JSON.stringify(e.data), '{}'));
    expect(stored.equals(eventDigest(e))).toBe(false);
  });
});

describe('chainHash', () => {
  it('hashes previous ‖ version (8 bytes) ‖ digest, on the fast path and the general one', () => {
    const d = createHash('sha256').update('d').digest();
    const p = createHash('sha256').update('p').digest();
    const v = Buffer.alloc(8);
    v.writeBigInt64BE(7n);
    expect(chainHash(p, 7, d).toString('hex')).toBe(
      createHash('sha256').update(p).update(v).update(d).digest('hex'),
    );
    expect(chainHash(null, 7, d).toString('hex')).toBe(
      createHash('sha256').update(v).update(d).digest('hex'),
    );
    const odd = Buffer.from('short');
    expect(chainHash(odd, 7, d).toString('hex')).toBe(
      createHash('sha256').update(odd).update(v).update(d).digest('hex'),
    );
  });
});

// The digest's canonical JSON must stay byte for byte what the `canonicalize` package wrote when the
// log's events were hashed (a verifier recomputes their digests): the two compared over arbitrary
// JSON values, and on the inputs the package refuses.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, eventDigest } from './chain.js';

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

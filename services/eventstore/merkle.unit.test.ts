// The Merkle tree against RFC 6962's recursive definition, and its audit paths both ways.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  auditPath,
  auditPaths,
  EMPTY_ROOT,
  leafHash,
  merkleRoot,
  nodeHash,
  rootFromPath,
  verifyPath,
} from './merkle.js';

const h = (i: number) => createHash('sha256').update(`event ${i}`).digest();
const hashes = (n: number) => Array.from({ length: n }, (_, i) => h(i));

/** RFC 6962 §2.1, word for word: MTH and PATH by the split at the largest power of two below n. */
function mth(d: Buffer[]): Buffer {
  if (d.length === 0) return createHash('sha256').digest();
  if (d.length === 1) return leafHash(d[0]);
  let k = 1;
  while (k * 2 < d.length) k *= 2;
  return nodeHash(mth(d.slice(0, k)), mth(d.slice(k)));
}
function path(m: number, d: Buffer[]): Buffer[] {
  if (d.length <= 1) return [];
  let k = 1;
  while (k * 2 < d.length) k *= 2;
  return m < k
    ? [...path(m, d.slice(0, k)), mth(d.slice(k))]
    : [...path(m - k, d.slice(k)), mth(d.slice(0, k))];
}

describe('Merkle tree (RFC 6962)', () => {
  it('gives the recursive definition’s root and paths for every size up to 70', () => {
    for (let n = 0; n <= 70; n++) {
      const d = hashes(n);
      expect(merkleRoot(d).equals(mth(d))).toBe(true);
      for (let m = 0; m < n; m++) {
        const p = auditPath(d, m);
        expect(p.map((x) => x.toString('hex'))).toEqual(path(m, d).map((x) => x.toString('hex')));
        expect(verifyPath(d[m], m, n, p, merkleRoot(d))).toBe(true);
      }
    }
    expect(merkleRoot([]).equals(EMPTY_ROOT)).toBe(true);
  });

  it('a path is logarithmic: 14 hashes at most for 10,000 leaves', () => {
    const d = hashes(10_000);
    const { root, paths } = auditPaths(d, [0, 4999, 9999]);
    for (const [i, p] of paths) {
      expect(p.length).toBeLessThanOrEqual(14);
      expect(verifyPath(d[i], i, d.length, p, root)).toBe(true);
    }
  });

  it('refuses another event, another place, another size, a changed hash or a cut path', () => {
    const d = hashes(13);
    const root = merkleRoot(d);
    const p = auditPath(d, 5);
    expect(verifyPath(d[5], 5, 13, p, root)).toBe(true);
    expect(verifyPath(d[6], 5, 13, p, root)).toBe(false);
    expect(verifyPath(d[5], 4, 13, p, root)).toBe(false);
    // A size whose tree puts leaf 5 at another depth (the size itself is the anchor's event count).
    expect(verifyPath(d[5], 5, 6, p, root)).toBe(false);
    const bent = p.map((x, i) => (i === 1 ? Buffer.from(x).fill(7, 0, 1) : x));
    expect(verifyPath(d[5], 5, 13, bent, root)).toBe(false);
    expect(rootFromPath(d[5], 5, 13, p.slice(1))).toBeNull();
    expect(rootFromPath(d[5], 5, 13, [...p, p[0]])).toBeNull();
    expect(rootFromPath(d[5], 13, 13, p)).toBeNull();
    expect(() => auditPath(d, 13)).toThrow(RangeError);
  });
});

// Merkle trees over event hashes, as RFC 6962 (Certificate Transparency) defines them, so that one
// event's place under an anchor is proved with O(log n) hashes instead of every hash of its range:
//
//   leaf  = SHA-256(0x00 ‖ event hash)
//   node  = SHA-256(0x01 ‖ left ‖ right)
//   MTH(D[n]) = node(MTH(D[0:k]), MTH(D[k:n])), k the largest power of two below n
//
// Built bottom-up, a level's last node without a partner moves up unchanged: that is the same tree
// as the recursive split (merkle.unit.test.ts holds the two equal). Pure: no I/O, no project imports.
// tools/audit-verifier.mjs repeats verifyPath in plain JavaScript; keep the two in step.
import { createHash, hash } from 'node:crypto';

const LEAF = Buffer.from([0]);
const NODE = Buffer.from([1]);
// One input buffer each, hashed whole: a third faster than a hash object per node (a verify hashes
// two per event). Event hashes are 32 bytes; anything else takes the general path.
const leafInput = Buffer.alloc(33);
const nodeInput = Buffer.alloc(65);
nodeInput[0] = 1;

export const leafHash = (eventHash: Buffer): Buffer => {
  if (eventHash.length !== 32) return createHash('sha256').update(LEAF).update(eventHash).digest();
  eventHash.copy(leafInput, 1);
  return hash('sha256', leafInput, 'buffer');
};

export const nodeHash = (left: Buffer, right: Buffer): Buffer => {
  if (left.length !== 32 || right.length !== 32)
    return createHash('sha256').update(NODE).update(left).update(right).digest();
  left.copy(nodeInput, 1);
  right.copy(nodeInput, 33);
  return hash('sha256', nodeInput, 'buffer');
};

/** The root of an empty tree: SHA-256 of nothing (RFC 6962 §2.1). */
export const EMPTY_ROOT = createHash('sha256').digest();

/** One level up: pairs hashed, a last node without a partner carried as it is. */
function up(level: Buffer[]): Buffer[] {
  const next: Buffer[] = new Array(Math.ceil(level.length / 2));
  for (let i = 0; i + 1 < level.length; i += 2) next[i >> 1] = nodeHash(level[i], level[i + 1]);
  if (level.length % 2 === 1) next[next.length - 1] = level[level.length - 1];
  return next;
}

/** The root over event hashes in log order. */
export function merkleRoot(eventHashes: readonly Buffer[]): Buffer {
  if (eventHashes.length === 0) return EMPTY_ROOT;
  let level = eventHashes.map(leafHash);
  while (level.length > 1) level = up(level);
  return level[0];
}

/**
 * Audit paths of the given leaves (indices into the range), with the root, from one pass over the
 * tree: an export proves all of an approval's events in an anchor at once.
 */
export function auditPaths(
  eventHashes: readonly Buffer[],
  indices: readonly number[],
): { root: Buffer; paths: Map<number, Buffer[]> } {
  for (const i of indices)
    if (!Number.isInteger(i) || i < 0 || i >= eventHashes.length)
      throw new RangeError(`leaf ${i} is outside a tree of ${eventHashes.length}`);
  const paths = new Map(indices.map((i) => [i, [] as Buffer[]]));
  const at = new Map(indices.map((i) => [i, i]));
  if (eventHashes.length === 0) return { root: EMPTY_ROOT, paths };
  let level = eventHashes.map(leafHash);
  while (level.length > 1) {
    for (const [leaf, i] of at) {
      const sibling = i ^ 1;
      // Without a partner the node moves up unchanged: nothing to prove at this level.
      if (sibling < level.length) paths.get(leaf)?.push(level[sibling]);
      at.set(leaf, i >> 1);
    }
    level = up(level);
  }
  return { root: level[0], paths };
}

/** One leaf's audit path (RFC 6962 §2.1.1). */
export function auditPath(eventHashes: readonly Buffer[], index: number): Buffer[] {
  return auditPaths(eventHashes, [index]).paths.get(index) ?? [];
}

/**
 * The root that an event hash and its audit path give at `index` in a tree of `size` leaves
 * (RFC 9162 §2.1.3.2), or null when the path cannot belong to such a tree (too long or too short).
 */
export function rootFromPath(eventHash: Buffer, index: number, size: number, path: readonly Buffer[]) {
  if (!Number.isInteger(index) || !Number.isInteger(size) || index < 0 || index >= size) return null;
  let fn = index;
  let sn = size - 1;
  let r = leafHash(eventHash);
  for (const p of path) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      // A right edge node: climb past the levels where it had no partner.
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

export function verifyPath(
  eventHash: Buffer,
  index: number,
  size: number,
  path: readonly Buffer[],
  root: Buffer,
): boolean {
  const r = rootFromPath(eventHash, index, size, path);
  return r?.equals(root) ?? false;
}

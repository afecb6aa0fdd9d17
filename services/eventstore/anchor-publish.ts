// Anchors published outside the database: one JSON line per anchor, appended to a file that only
// ever grows (opened O_APPEND, flushed before the job goes on), one file per database in the
// directory AUDIT_ANCHOR_DIR (default .local/anchors/). Whoever owns the database can rewrite
// es_anchors and the events under it consistently; they cannot rewrite what was already handed out
// here without it showing (`npm run audit -- verify` compares the two). Copy the file elsewhere
// (a WORM bucket, a ticket, a mail) as often as the threat asks: every copy pins the past.
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

/** An anchor as published (and as the ADMIN call serves it). */
export interface PublishedAnchor {
  seq: number;
  /** 1: a digest over the range's hashes in a row (older anchors); 2: a Merkle root (anchors.ts). */
  version: 1 | 2;
  firstPosition: string;
  lastPosition: string;
  eventCount: number;
  /** Version 2: the Merkle root over the range's event hashes (hex). */
  root: string | null;
  /** Version 2: each stream's last event in the range, [streamId, version, hash hex], by stream id. */
  heads: Array<[string, number, string]> | null;
  /** Version 2: SHA-256 of JSON.stringify(heads) (hex). */
  headsDigest: string | null;
  /** The previous anchor's digest (hex), null for the first. */
  previous: string | null;
  digest: string;
  at: string;
}

/** The directory: AUDIT_ANCHOR_DIR, else the checkout's .local/anchors/ (a test's: a temp one). */
export function anchorDir(env: Record<string, string | undefined> = process.env): string {
  if (env.AUDIT_ANCHOR_DIR) return path.resolve(env.AUDIT_ANCHOR_DIR);
  // Test apps run the anchor job too: their throw-away databases must not fill the instance's directory.
  if (env.VITEST) return path.join(os.tmpdir(), 'billflow-test-anchors');
  return fileURLToPath(new URL('../../.local/anchors', import.meta.url));
}

/** The file of one database's anchors: its name is the database's, so several share a directory. */
export async function anchorFile(pool: pg.Pool, dir = anchorDir()): Promise<string> {
  const r = await pool.query<{ db: string }>('SELECT current_database() AS db');
  return path.join(dir, `${r.rows[0].db.replace(/[^\w.-]/g, '_')}.jsonl`);
}

/** Appends the anchors, one line each, and flushes them to disk before answering. */
export function appendPublished(file: string, anchors: readonly PublishedAnchor[]): void {
  if (anchors.length === 0) return;
  mkdirSync(path.dirname(file), { recursive: true });
  const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o644);
  try {
    writeSync(fd, anchors.map((a) => `${JSON.stringify(a)}\n`).join(''));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Every line of the file, parsed (a line that is not an anchor is reported by its number). */
export function readPublished(file: string): { anchors: PublishedAnchor[]; badLines: number[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { anchors: [], badLines: [] };
    throw err;
  }
  const anchors: PublishedAnchor[] = [];
  const badLines: number[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const a = JSON.parse(line) as PublishedAnchor;
      if (typeof a.seq !== 'number' || typeof a.digest !== 'string') throw new Error('not an anchor');
      anchors.push(a);
    } catch {
      badLines.push(i + 1);
    }
  });
  return { anchors, badLines };
}

/**
 * The highest anchor number in the file, from its end (the file grows for ever; the job reads only
 * its last line). 0 when the file is empty or absent.
 */
export function lastPublishedSeq(file: string): number {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  try {
    const size = fstatSync(fd).size;
    let end = size;
    let tail = '';
    const chunk = Buffer.alloc(64 * 1024);
    while (end > 0) {
      const n = Math.min(chunk.length, end);
      end -= n;
      readSync(fd, chunk, 0, n, end);
      tail = chunk.toString('utf8', 0, n) + tail;
      const lines = tail.split('\n').filter((l) => l.trim() !== '');
      // A whole last line: a newline before it, or the file's start.
      const trimmed = tail.replace(/\n+$/, '');
      if (lines.length > 0 && (trimmed.includes('\n') || end === 0)) {
        const m = /"seq":(\d+)/.exec(lines[lines.length - 1]);
        return m ? Number(m[1]) : 0;
      }
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

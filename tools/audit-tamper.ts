// The kinds of tampering tools/audit-ci.ts shows `npm run audit -- verify` catching on the demo
// data: each one is done to a copy of the seeded database, in SQL, as someone with access to the
// database (not to the published anchor file) could, and answers the finding line verify must print.
import { createHash, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { anchorDigestV2, readAnchors } from '../services/eventstore/anchors.js';
import { eventDigest } from '../services/eventstore/chain.js';
import { LOG_ORDER_SQL, positionParams } from '../services/eventstore/postgres.js';

/** An expectation of the audit step that did not hold (reported as such, not as a crash). */
export class Expectation extends Error {}

/** One kind of tampering: what to do to a copy, and the finding `npm run audit -- verify` must print. */
export interface Tampering {
  kind: string;
  /** Applies it; answers the finding line expected (a pattern over the whole line). */
  apply(pool: pg.Pool): Promise<RegExp>;
}

export const one = async <T extends pg.QueryResultRow>(
  pool: pg.Pool,
  text: string,
  values: unknown[] = [],
) => {
  const r = await pool.query<T>(text, values);
  if (!r.rows[0]) throw new Expectation(`nothing to tamper with: ${text}`);
  return r.rows[0];
};

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const TAMPERINGS: Tampering[] = [
  {
    // A bill's balance raised inside an approval's ApprovalCreated, as someone with SQL could.
    kind: 'altered',
    async apply(pool) {
      const e = await one<{ stream_id: string; v: number }>(
        pool,
        `SELECT stream_id, stream_version::int AS v FROM es_events
          WHERE event_type = 'ApprovalCreated' AND json_array_length(data->'bills') > 0
          ORDER BY global_position LIMIT 1`,
      );
      await pool.query(
        `UPDATE es_events SET data = jsonb_set(data::jsonb, '{bills,0,Balance}', '99999.99')::json
          WHERE stream_id = $1 AND stream_version = $2`,
        [e.stream_id, e.v],
      );
      return new RegExp(
        `^ALTERED  stream ${esc(e.stream_id)} version ${e.v}: ApprovalCreated: content does not give its digest$`,
      );
    },
  },
  {
    // A forged decision appended to an approval, slipped into the past (its last event's
    // transaction, so it sorts inside an anchored range), with a correct digest; the insert
    // trigger even chains it: the stream's own chain holds, the anchor's heads do not.
    kind: 'inserted',
    async apply(pool) {
      const last = await one<{ stream_id: string; v: number; epoch: number; xid: string }>(
        pool,
        `SELECT DISTINCT ON (stream_id) stream_id, stream_version::int AS v, epoch, transaction_id::text AS xid
           FROM es_events e WHERE stream_id LIKE 'approval-%'
            AND NOT EXISTS (SELECT 1 FROM es_events x WHERE x.stream_id = e.stream_id AND x.event_type <> 'ApprovalCreated')
          ORDER BY stream_id, stream_version DESC`,
      );
      const id = randomUUID();
      const approvalId = last.stream_id.slice('approval-'.length);
      const data = { approvalId, approvedBills: [], byUserId: 1, at: new Date().toISOString() };
      const digest = eventDigest({
        id,
        streamId: last.stream_id,
        type: 'ApprovalApproved',
        schemaVersion: 1,
        data,
        metadata: {},
      });
      await pool.query(
        `INSERT INTO es_events (epoch, transaction_id, stream_id, stream_version, event_id, event_type, data, metadata, digest)
         VALUES ($1, $2::xid8, $3, $4, $5, 'ApprovalApproved', $6, '{}', $7)`,
        [last.epoch, last.xid, last.stream_id, last.v + 1, id, data, digest],
      );
      return new RegExp(
        `^INSERTED  stream ${esc(last.stream_id)} version ${last.v + 1}: in anchor \\d+'s range, which did not hold it$`,
      );
    },
  },
  {
    // An event taken out of the middle of a paid approval's stream.
    kind: 'deleted',
    async apply(pool) {
      const s = await one<{ stream_id: string }>(
        pool,
        `SELECT stream_id FROM es_events WHERE stream_id LIKE 'approval-%'
          GROUP BY stream_id HAVING count(*) >= 3 ORDER BY count(*) DESC, stream_id LIMIT 1`,
      );
      await pool.query('DELETE FROM es_events WHERE stream_id = $1 AND stream_version = 2', [s.stream_id]);
      return new RegExp(`^REMOVED  stream ${esc(s.stream_id)} version 2: missing$`);
    },
  },
  {
    // Every event after the last anchor removed: no anchor covers them yet. The tail witness (in
    // Redis, outside the database) saw each one committed and names it; the read models' checkpoints
    // (addUnanchoredTail waited for them) say so too.
    kind: 'tail removed',
    async apply(pool) {
      const anchors = await readAnchors(pool);
      const last = anchors.at(-1);
      if (!last) throw new Expectation('no anchor: nothing is "after the last anchor"');
      const r = await pool.query(
        `DELETE FROM es_events WHERE (${LOG_ORDER_SQL}) > ($1, $2::xid8, $3::bigint)`,
        positionParams(last.lastPosition),
      );
      if (!r.rowCount) throw new Expectation('no event after the last anchor to remove');
      return /^REMOVED {2}stream \S+ version \d+: committed \(the tail witness saw the stream at version \d+\), gone from the log$/;
    },
  },
  {
    // The last anchor's Merkle root replaced, and its digest recomputed so that the database's row
    // agrees with itself: only the published file, outside the database, shows it.
    kind: 'anchor rewritten',
    async apply(pool) {
      const a = (await readAnchors(pool)).at(-1);
      if (a?.version !== 2) throw new Expectation('no version-2 anchor to rewrite');
      const root = createHash('sha256').update('forged').digest('hex');
      const digest = anchorDigestV2({ ...a, root, headsDigest: a.headsDigest ?? '' });
      await pool.query(`UPDATE es_anchors SET root = $1, digest = $2 WHERE seq = $3`, [
        Buffer.from(root, 'hex'),
        Buffer.from(digest, 'hex'),
        a.seq,
      ]);
      return new RegExp(`^ALTERED  anchor ${a.seq}: the database's anchor differs from the published one$`);
    },
  },
];

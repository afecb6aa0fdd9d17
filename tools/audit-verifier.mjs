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
//      one to the next and each give their own digest;
//   4. the bundle is whole as of its own export: it ends with an export of this approval
//      (ApprovalAuditExported, which the export appends before it anchors the log), and reaches the
//      stream's head that the published anchor covering that export records (its version and hash).
//      A bundle cut short ends elsewhere and fails, unless it ends exactly at an earlier export: then
//      it is that export's bundle. Events the stream got after the export are not the bundle's: a
//      bundle stays provable however far the approval moves on (one NOTE line says the anchors show
//      later events);
//   5. the view (the events opened, for reading) says what the events hold: each entry has its event
//      and the event an entry; a field stored plain is equal in both; a sealed personal field matches
//      the commitment the event keeps for it (`pii.c`, in the order of `pii.f`): the first 22
//      characters of the base64url SHA-256 of "billflow-commit/1\n" salt "\n" event id "\n" field
//      "\n" and the value's canonical JSON, with the salt the view gives for the event.
//      What cannot be checked is printed UNVERIFIED, field by field, never counted as proven: a field
//      sealed before commitments were kept, one erased (its subject forgotten), and, in an entry marked
//      `reshaped` (an older event read in today's shape), a field that differs from what is stored.
// Exit status 0 when all holds (UNVERIFIED fields included, counted in the last line); 1 with a line
// per failure otherwise; 2 when the input cannot be read.
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

/** A sealed field's commitment (services/privacy/personal-data.ts writes the same). */
const commitment = (salt, eventId, field, value) =>
  sha256(`billflow-commit/1\n${salt}\n${eventId}\n${field}\n${canonical(value)}`)
    .toString('base64url')
    .slice(0, 22);

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const sameJson = (a, b) => {
  try {
    return canonical(a) === canonical(b);
  } catch {
    return false;
  }
};

/** The failures only (an empty list: the bundle is proved). */
export function verifyBundle(bundle, publishedLines) {
  return checkBundle(bundle, publishedLines).failures;
}

/**
 * Every check: `failures` (lines), `unverified` (lines, one per field of the view that cannot be
 * checked), how many fields of the view were `proven` against the events, and `notes` (lines that
 * are neither: the stream's events after this bundle's export).
 */
export function checkBundle(bundle, publishedLines) {
  const failures = [];
  const fail = (where, what) => failures.push(`${where}: ${what}`);
  const unverified = [];
  const notes = [];
  let proven = 0;

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

  // 4. The approval's stream up to its head as of the bundle's own export, which ends the bundle.
  const heads = new Map();
  for (const a of published.values())
    for (const [streamId, version, hash] of a.heads ?? [])
      heads.set(streamId, [...(heads.get(streamId) ?? []), { seq: a.seq, version, hash }]);
  const approvalStream = `approval-${bundle.approvalId}`;
  const last = (streams.get(approvalStream) ?? []).at(-1);
  if (last) {
    const where = `stream ${approvalStream}`;
    const isExport =
      last.type === 'ApprovalAuditExported' &&
      isObject(last.data) &&
      last.data.approvalId === bundle.approvalId;
    // The anchor whose range holds the export's position; its audit path must lead to that one.
    const under =
      typeof last.position === 'string'
        ? [...published.values()].find(
            (a) =>
              typeof a.firstPosition === 'string' &&
              typeof a.lastPosition === 'string' &&
              a.firstPosition <= last.position &&
              last.position <= a.lastPosition,
          )
        : undefined;
    const head = under && (under.heads ?? []).find(([s]) => s === approvalStream);
    if (!isExport)
      fail(
        where,
        `the bundle ends with version ${last.version}, ${last.type}, not with an export of this approval (ApprovalAuditExported): it is cut short or was not made by an export, so nothing shows it whole`,
      );
    else if (!under)
      fail(
        where,
        `its export (version ${last.version}) is under no published anchor: the bundle cannot be shown whole`,
      );
    else if (last.proof?.anchor !== under.seq)
      fail(
        where,
        `its export (version ${last.version}) lies in published anchor ${under.seq}'s range but its proof names anchor ${last.proof?.anchor}`,
      );
    else if (!head)
      fail(where, `anchor ${under.seq}, which covers its export, records no head for the stream`);
    else if (head[1] > last.version)
      fail(
        where,
        `anchor ${under.seq}, which covers its export (version ${last.version}), records version ${head[1]} as its head: ${
          head[1] === last.version + 1
            ? `version ${head[1]} is`
            : `versions ${last.version + 1}–${head[1]} are`
        } missing`,
      );
    else if (head[1] < last.version || head[2] !== last.hash)
      fail(
        where,
        `anchor ${under.seq}, which covers its export (version ${last.version}), records another head (version ${head[1]}, another hash)`,
      );
    const recorded = heads.get(approvalStream) ?? [];
    const top = recorded.reduce((a, b) => (b.version > a.version ? b : a), { version: 0 });
    if (isExport && top.version > last.version)
      notes.push(
        `${where} has later events than this bundle: the published anchors record up to version ${top.version} (anchor ${top.seq}); they came after this export and are not part of it`,
      );
  }
  for (const [streamId, events] of streams) {
    const recorded = heads.get(streamId) ?? [];
    const byVersion = new Map(events.map((e) => [e.version, e]));
    for (const r of recorded) {
      const e = byVersion.get(r.version);
      if (e && e.hash !== r.hash)
        fail(`stream ${streamId} version ${r.version}`, `anchor ${r.seq} records another hash as its head`);
    }
  }

  // 5. The view against the approval's events.
  const streamId = `approval-${bundle.approvalId}`;
  const own = new Map();
  for (const e of bundle.events ?? []) {
    if (e.streamId !== streamId) fail(`stream ${e.streamId} version ${e.version}`, `not of ${streamId}`);
    else own.set(e.version, e);
  }
  const viewed = new Set();
  for (const v of Array.isArray(bundle.view) ? bundle.view : []) {
    const where = `view version ${v?.version}`;
    const e = own.get(v?.version);
    if (!e) {
      fail(where, `no event of ${streamId} in the bundle has this version`);
      continue;
    }
    if (viewed.has(e.version)) {
      fail(where, 'shown twice');
      continue;
    }
    viewed.add(e.version);
    if (v.type !== e.type) {
      fail(where, `shows a ${v.type} where the event is a ${e.type}`);
      continue;
    }
    const result = checkView(e, v);
    proven += result.proven;
    for (const [field, what] of result.failures) fail(`${where} ${e.type}.${field}`, what);
    for (const [field, why] of result.unverified) unverified.push(`${where} ${e.type}.${field}: ${why}`);
  }
  for (const e of own.values())
    if (!viewed.has(e.version)) fail(`view version ${e.version}`, `${e.type} is missing from the view`);
  return { failures, unverified, proven, notes };
}

/** One view entry against its event, field by field (the data's top-level members). */
function checkView(e, v) {
  const failures = [];
  const unverified = [];
  let proven = 0;
  if (!isObject(e.data)) {
    if (sameJson(v.data ?? null, e.data ?? null)) proven++;
    else failures.push(['data', 'differs from the event']);
    return { failures, unverified, proven };
  }
  const { pii, ...plain } = e.data;
  const sealed = isObject(pii) && Array.isArray(pii.f) ? pii : null;
  const sealedFields = new Set(sealed ? sealed.f : []);
  const commitments = new Map();
  if (sealed && Array.isArray(sealed.c))
    for (const [i, f] of sealed.f.entries()) commitments.set(f, sealed.c[i]);
  if (!isObject(v.data)) return { failures: [['data', 'is not an object']], unverified, proven };
  const view = v.data;
  const erased = new Set(Array.isArray(v.erased) ? v.erased : []);
  const reshaped = v.reshaped === true;
  // Differs from what is stored: in an entry read in today's shape it may be the reading, not a lie.
  const differs = (field, what, why) =>
    reshaped
      ? unverified.push([field, `${why} (the entry is read in today's shape)`])
      : failures.push([field, what]);
  const fields = new Set([...Object.keys(plain), ...sealedFields, ...Object.keys(view)]);
  for (const field of [...fields].sort()) {
    const shown = Object.hasOwn(view, field);
    if (sealedFields.has(field)) {
      if (erased.has(field)) {
        if (shown && view[field] !== null) failures.push([field, 'is named erased but shows a value']);
        else unverified.push([field, 'erased (its subject was forgotten): nothing to check']);
      } else if (!shown) differs(field, 'is sealed in the event but missing from the view', 'not shown');
      else if (typeof commitments.get(field) !== 'string')
        unverified.push([field, 'sealed without a commitment (before they were kept): cannot be checked']);
      else if (typeof v.salt !== 'string')
        failures.push([field, 'the view gives no salt for the commitment the event keeps']);
      else {
        let c = null;
        try {
          c = commitment(v.salt, e.id, field, view[field]);
        } catch {}
        if (c === commitments.get(field)) proven++;
        else
          differs(
            field,
            'does not match the commitment sealed in the event',
            'does not match its commitment',
          );
      }
    } else if (Object.hasOwn(plain, field)) {
      if (!shown) differs(field, 'is in the event but missing from the view', 'not shown under this name');
      else if (sameJson(view[field], plain[field])) proven++;
      else differs(field, 'differs from the event', 'differs from the stored value');
    } else differs(field, 'is not in the event', 'not in the stored event');
  }
  return { failures, unverified, proven };
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
  const { failures, unverified, proven, notes } = checkBundle(bundle, lines);
  for (const f of failures) console.log(`FAILED  ${f}`);
  for (const u of unverified) console.log(`UNVERIFIED  ${u}`);
  for (const n of notes) console.log(`NOTE  ${n}`);
  const fields = `view: ${proven} field(s) proven against the events, ${unverified.length} unverified`;
  console.log(
    failures.length === 0
      ? `OK: ${bundle.events.length} events of approval ${bundle.approvalId} chain up to its export, the stream's head the export's published anchor records, each under a published anchor; ${fields}`
      : `${failures.length} failure(s): the bundle does not prove its events. ${fields}`,
  );
  return failures.length === 0 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main(process.argv.slice(2));

// Personal fields inside events are sealed with the subject's key before they reach the log, and
// opened again on every read, so nothing above the event store port sees ciphertext and nothing in
// the log holds a plain name, e-mail address or IP (shared/reference/privacy-and-tamper-evidence.md).
//
// An event's personal fields are sealed together, AES-256-GCM, in one `pii` member:
// `{ k: subject, iv, ct, f: [field names] }`, with the event id as additional authenticated data,
// so a ciphertext cannot be moved to another event unnoticed. One cipher per event rather than one
// per field: a replay decrypts every event, and each cipher costs a few microseconds to set up.
// Once the subject is forgotten its key is gone: the event still loads, with those fields null and
// listed in `erased`.
//
// Beside the cipher, the sealed member keeps a salted commitment to each field's plain value (`c`),
// hashed into the event's digest with the rest, so an opened copy of the event (an audit bundle's
// view) can be checked against the log without the key. The salt comes from the subject's key and the
// event id: only a holder of the key, or the opened view, can give it, so a commitment cannot be
// tried against a list of likely values, and forgetting the subject takes the salt with the key.
import { createCipheriv, createDecipheriv, createHmac, hash, randomBytes } from 'node:crypto';
import type { PersonalFields } from '../../schema/shared/personal.js';
import { canonicalJson } from '../eventstore/chain.js';
import type {
  AppendResult,
  EventStore,
  ExpectedVersion,
  NewEvent,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  StoredEvent,
  SubscribeOptions,
  SubscriptionMessage,
} from '../eventstore/port.js';
import type { SubjectKeys } from './subject-keys.js';

export type { PersonalFields } from '../../schema/shared/personal.js';

export interface Sealed {
  k: string;
  iv: string;
  ct: string;
  f: string[];
  /**
   * Each field's commitment (commitment below), in the order of `f`; null for a value that has none.
   * Absent in members sealed before commitments were kept.
   */
  c?: Array<string | null>;
}

/**
 * The salt of an event's commitments: HMAC-SHA-256 under the subject's key of a label and the event id
 * (a key derivation: the key itself is never revealed by it), base64url. Given out only with the
 * opened fields (the audit bundle's view).
 */
export function commitmentSalt(eventId: string, key: Buffer): string {
  return createHmac('sha256', key).update(`billflow-commitment-salt/1\n${eventId}`).digest('base64url');
}

/**
 * The commitment to one personal field's plain value: SHA-256 over
 * `billflow-commit/1 \n salt \n event id \n field \n canonical JSON of the value` (RFC 8785), base64url,
 * its first 22 characters (132 bits: every sealed event of a replay carries them, and a forged value
 * would need a second preimage that long). tools/audit-verifier.mjs computes the same. One-shot
 * `hash`: a sealing computes one per field, and a Hash object costs it four times as much.
 */
export function commitment(salt: string, eventId: string, field: string, value: unknown): string {
  return hash(
    'sha256',
    `billflow-commit/1\n${salt}\n${eventId}\n${field}\n${canonicalJson(value)}`,
    'base64url',
  ).slice(0, 22);
}

const aad = (eventId: string) => Buffer.from(`${eventId}:pii`);

const NONCE_BYTES = 12;
const NONCES_PER_FILL = 1024;
let nonces = Buffer.alloc(0);
let noncesUsed = NONCES_PER_FILL;
/**
 * A fresh random 96-bit GCM nonce, cut from one CSPRNG fill per 1,024 (as Node does for
 * randomUUID): randomBytes(12) costs 5 – 7 µs a call on this host, and a CSV import seals 10,000
 * events. Each fill is a new buffer and each nonce a slice of it handed out once.
 */
function freshNonce(): Buffer {
  if (noncesUsed === NONCES_PER_FILL) {
    nonces = randomBytes(NONCE_BYTES * NONCES_PER_FILL);
    noncesUsed = 0;
  }
  const at = NONCE_BYTES * noncesUsed++;
  return nonces.subarray(at, at + NONCE_BYTES);
}

/** Sealed events in one read from which opening them on the worker thread pays (open-worker.ts). */
const WORKER_BATCH_MIN = 256;

export function isSealed(value: unknown): value is Sealed {
  return (
    typeof value === 'object' && value !== null && typeof (value as Sealed).ct === 'string' && 'k' in value
  );
}

/**
 * The data with its present personal fields replaced by one sealed member (unchanged when none), with
 * each field's commitment unless `commit` is false.
 */
export function sealData(
  eventId: string,
  data: Record<string, unknown>,
  spec: PersonalFields,
  subject: string,
  key: Buffer,
  { commit = true }: { commit?: boolean } = {},
): Record<string, unknown> {
  // A null holds nothing personal: only values are sealed (a replay opens fewer events).
  const present = spec.fields.filter((f) => data[f] !== undefined && data[f] !== null);
  if (present.length === 0) return data;
  const rest: Record<string, unknown> = {};
  const personal: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(data)) {
    if (present.includes(name)) personal[name] = value;
    else rest[name] = value;
  }
  const iv = freshNonce();
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(aad(eventId));
  const ct = Buffer.concat([c.update(JSON.stringify(personal)), c.final(), c.getAuthTag()]);
  const sealed: Sealed = { k: subject, iv: iv.toString('base64'), ct: ct.toString('base64'), f: present };
  if (commit) {
    const salt = commitmentSalt(eventId, key);
    sealed.c = present.map((f) => {
      try {
        return commitment(salt, eventId, f, personal[f]);
      } catch {
        // A value canonical JSON refuses (a lone surrogate) is sealed without one: shown as unverified.
        return null;
      }
    });
  }
  rest.pii = sealed;
  return rest;
}

/** The data with its sealed member opened, or, without a key, its fields null and named as erased. */
export function openData(
  eventId: string,
  data: Record<string, unknown>,
  key: Buffer | null,
): { data: Record<string, unknown>; erased: string[] | null } {
  const sealed = data.pii as Sealed;
  const { pii: _, ...rest } = data;
  if (!key) {
    for (const f of sealed.f) rest[f] = null;
    return { data: rest, erased: sealed.f };
  }
  const ct = Buffer.from(sealed.ct, 'base64');
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
  d.setAAD(aad(eventId));
  d.setAuthTag(ct.subarray(ct.length - 16));
  const plain = Buffer.concat([d.update(ct.subarray(0, ct.length - 16)), d.final()]);
  return { data: { ...rest, ...JSON.parse(plain.toString('utf8')) }, erased: null };
}

export { BlindIndex } from './blind-index.js';

/**
 * The event store as everything above the port uses it: seals personal fields on append, opens
 * them on every read. The adapters below store (and, with the hash chain, hash) only the sealed form.
 */
export class PersonalDataStore implements EventStore {
  readonly kind: EventStore['kind'];

  constructor(
    readonly inner: EventStore,
    private readonly keys: SubjectKeys,
    private readonly personalFieldsOf: (type: string) => PersonalFields | undefined,
    /** Event types after which a subject's key is gone (dropped from this process's memory at once). */
    private readonly forgetting: ReadonlySet<string> = new Set(),
  ) {
    this.kind = inner.kind;
  }

  init() {
    return this.inner.init();
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedVersion): Promise<AppendResult> {
    const sealed: NewEvent[] = [];
    for (const e of events) {
      const spec = this.personalFieldsOf(e.type);
      const data = e.data as Record<string, unknown>;
      if (!spec?.fields.some((f) => data[f] !== undefined && data[f] !== null)) {
        sealed.push(e);
        continue;
      }
      const subject = spec.subject(data);
      const key = await this.keys.getOrCreate(subject);
      sealed.push({ ...e, data: sealData(e.id, data, spec, subject, key) });
    }
    return this.inner.append(streamId, sealed, expected);
  }

  async readStream(streamId: string, options?: ReadStreamOptions) {
    const result = await this.inner.readStream(streamId, options);
    await this.openAll(result.events);
    return result;
  }

  async readStreams(streamIds: string[]) {
    const result = this.inner.readStreams
      ? await this.inner.readStreams(streamIds)
      : new Map(
          (
            await Promise.all(streamIds.map(async (id) => [id, await this.inner.readStream(id)] as const))
          ).filter(([, r]) => r.version > 0),
        );
    // One key lookup for every subject of every stream; a thousand streams (an import's read-ahead)
    // are opened on the worker thread, beside the appends of the thousand before.
    await this.openBatch([...result.values()].flatMap((r) => r.events));
    return result;
  }

  async readAll(after: Position, limit: number, options?: ReadAllOptions): Promise<StoredEvent[]> {
    const events = await this.inner.readAll(after, limit, options);
    if (!options?.sealed) await this.openBatch(events);
    return events;
  }

  openSealed(events: StoredEvent[]): Promise<void> {
    return this.openBatch(events);
  }

  /**
   * The salt of each event's commitments, by event id, for events as stored (still sealed): none for
   * an event sealed without commitments or whose subject was forgotten.
   */
  async commitmentSalts(events: readonly StoredEvent[]): Promise<Map<string, string>> {
    const salts = new Map<string, string>();
    for (const e of events) {
      const pii = (e.data as Record<string, unknown> | null)?.pii;
      if (!isSealed(pii) || !pii.c) continue;
      const key = this.keys.cached(pii.k) ?? (await this.keys.get(pii.k));
      if (key) salts.set(e.id, commitmentSalt(e.id, key));
    }
    return salts;
  }

  /** A rebuild or a catch-up reads thousands at a time: those are opened on the worker thread. */
  private async openBatch(events: StoredEvent[]) {
    if (!(await this.openOnWorker(events))) await this.openAll(events);
  }

  /**
   * Opens what the subscriber reads (`opens`; every event without it). The others come as stored,
   * sealed, which saves a key unwrap and a decipher each: a CSV import's 10,000 bank-detail events
   * cost the projector 0.7 s of CPU to open for a read model that keeps only their last four digits.
   * Forgetting events are always handled, so a subject's key is dropped at its place in the log.
   */
  async *subscribe(options: SubscribeOptions): AsyncIterable<SubscriptionMessage> {
    const prepare = options.prepareBatch;
    const opens = options.opens;
    const wanted = opens ? (e: StoredEvent) => opens(e) || this.forgetting.has(e.type) : () => true;
    const prepareBatch = async (events: StoredEvent[]) => {
      await this.openAll(opens ? events.filter(wanted) : events);
      if (prepare) await prepare(events);
    };
    for await (const message of this.inner.subscribe({ ...options, prepareBatch })) {
      if (message.kind === 'event' && wanted(message.event)) await this.open(message.event);
      yield message;
    }
  }

  headPosition() {
    return this.inner.headPosition();
  }

  async close() {
    await this.keys.close();
    return this.inner.close();
  }

  /**
   * Opens a large batch on the worker thread (services/privacy/open-worker.ts): false, having done
   * nothing, when the batch is small or forgets a subject. A forgetting event drops its subject's
   * key part-way through a batch (`open`), which only the one-by-one path below keeps exact.
   */
  private async openOnWorker(events: StoredEvent[]): Promise<boolean> {
    const sealed: Array<{ event: StoredEvent; pii: Sealed }> = [];
    for (const e of events) {
      if (this.forgetting.has(e.type)) return false;
      const pii = (e.data as Record<string, unknown> | null)?.pii;
      if (isSealed(pii)) sealed.push({ event: e, pii });
    }
    if (sealed.length < WORKER_BATCH_MIN) return false;
    const keys = new Map<string, Buffer | null>();
    const unknown: string[] = [];
    for (const { pii } of sealed) {
      if (keys.has(pii.k)) continue;
      const key = this.keys.cached(pii.k);
      if (key === undefined) unknown.push(pii.k);
      keys.set(pii.k, key ?? null);
    }
    const wrapped = await this.keys.wrappedOf(unknown);
    const held: Array<[string, Buffer]> = [];
    for (const [subject, key] of keys) if (key) held.push([subject, key]);
    const toUnwrap: Array<[string, Buffer]> = [];
    for (const [subject, w] of wrapped) if (w) toUnwrap.push([subject, w]);
    const ids: string[] = [];
    const subjects: string[] = [];
    const ivs: string[] = [];
    const cts: string[] = [];
    const opened: Array<{ event: StoredEvent; pii: Sealed }> = [];
    for (const one of sealed) {
      if (keys.get(one.pii.k) || wrapped.get(one.pii.k)) {
        ids.push(one.event.id);
        subjects.push(one.pii.k);
        ivs.push(one.pii.iv);
        cts.push(one.pii.ct);
        opened.push(one);
      }
    }
    const result = await this.keys.opener().open({ keys: held, wrapped: toUnwrap, ids, subjects, ivs, cts });
    for (const [subject, key] of result.unwrapped) {
      // A key the worker could not unwrap is unwrapped here, which throws why.
      const k = key ? Buffer.from(key) : this.keys.unwrapHere(subject, wrapped.get(subject)!);
      keys.set(subject, k);
      this.keys.remember(subject, k);
    }
    for (const [subject, w] of wrapped) if (!w) this.keys.remember(subject, null);
    const plains = JSON.parse(result.plains) as Array<Record<string, unknown> | null>;
    plains.forEach((plain, i) => {
      const { event } = opened[i];
      if (plain === null) {
        // Failed to open on the worker: opened here, which throws the cipher's own error.
        event.data = openData(
          event.id,
          event.data as Record<string, unknown>,
          keys.get(opened[i].pii.k) ?? null,
        ).data;
        return;
      }
      // In place: the parsed data is this event's own, and copying it without `pii` was a new object
      // per opened event. `pii` is its last member (sealData adds it last), and V8 drops a
      // last-added property without leaving the object's fast shape.
      const data = event.data as Record<string, unknown>;
      delete data.pii;
      Object.assign(data, plain);
    });
    // No key at all: forgotten, or never had one. Those fields load as erased.
    for (const { event, pii } of sealed) {
      if (keys.get(pii.k)) continue;
      const erased = openData(event.id, event.data as Record<string, unknown>, null);
      event.data = erased.data;
      event.erased = erased.erased ?? undefined;
    }
    return true;
  }

  private async openAll(events: StoredEvent[]) {
    const subjects: string[] = [];
    for (const e of events) {
      const pii = (e.data as Record<string, unknown> | null)?.pii;
      if (isSealed(pii) && this.keys.cached(pii.k) === undefined) subjects.push(pii.k);
    }
    if (subjects.length > 0) await this.keys.preload(subjects);
    for (const e of events) await this.open(e);
  }

  /**
   * Opens the event in place. The log's readers in one process share event objects (the Postgres
   * adapter's tail), so the first reader opens it for all and the others find it open.
   */
  private async open(event: StoredEvent): Promise<void> {
    const data = event.data as Record<string, unknown> | null;
    const pii = data?.pii;
    if (isSealed(pii)) {
      const key = this.keys.cached(pii.k) ?? (await this.keys.get(pii.k));
      const opened = openData(event.id, data as Record<string, unknown>, key);
      event.data = opened.data;
      if (opened.erased) event.erased = opened.erased;
    }
    if (this.forgetting.has(event.type)) {
      const subject = (event.data as { subject?: string } | null)?.subject;
      if (subject) this.keys.drop(subject);
    }
  }
}

// Opens large batches of sealed events on a worker thread. A replay opens every sealed event (one
// AES-256-GCM decipher each, and one more per subject to unwrap its key): on the main thread that
// was a fifth of a rebuild's time. On a worker it overlaps with the rebuild applying the previous
// batch (the rebuild reads ahead). Small batches (live subscriptions) stay on the caller's thread:
// a round trip to the worker would cost more than it saves.
//
// The worker's code is plain CommonJS given as a string, so it runs the same under tsx, vitest and
// the compiled build, with nothing to resolve. It only deciphers: which key belongs to which event,
// erasure and forgetting are decided by the caller (personal-data.ts).
import { Worker } from 'node:worker_threads';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createDecipheriv } = require('node:crypto');
const kek = Buffer.from(workerData.kek);
function decipher(key, iv, body, tag, aad) {
  const d = createDecipheriv('aes-256-gcm', key, iv);
  d.setAAD(aad);
  d.setAuthTag(tag);
  return Buffer.concat([d.update(body), d.final()]);
}
parentPort.on('message', (m) => {
  const keys = new Map();
  for (const [subject, key] of m.keys) keys.set(subject, Buffer.from(key.buffer, key.byteOffset, key.byteLength));
  const unwrapped = [];
  for (const [subject, w] of m.wrapped) {
    const wrapped = Buffer.from(w.buffer, w.byteOffset, w.byteLength);
    let key = null;
    try {
      key = decipher(kek, wrapped.subarray(0, 12), wrapped.subarray(12, wrapped.length - 16),
        wrapped.subarray(wrapped.length - 16), Buffer.from(subject));
    } catch {}
    if (key) keys.set(subject, key);
    unwrapped.push([subject, key]);
  }
  // The plaintexts (each a JSON object's text) as one JSON array: one string to copy back and one
  // JSON.parse on the caller's side, rather than a string each.
  let plains = '[';
  for (let i = 0; i < m.ids.length; i++) {
    const key = keys.get(m.subjects[i]);
    let plain = 'null';
    if (key) {
      try {
        const c = Buffer.from(m.cts[i], 'base64');
        plain = decipher(key, Buffer.from(m.ivs[i], 'base64'), c.subarray(0, c.length - 16),
          c.subarray(c.length - 16), Buffer.from(m.ids[i] + ':pii')).toString('utf8');
      } catch {}
    }
    plains += i === 0 ? plain : ',' + plain;
  }
  plains += ']';
  parentPort.postMessage({ id: m.id, unwrapped, plains });
});
`;

export interface OpenRequest {
  /** Keys the caller already holds, by subject. */
  keys: Array<[subject: string, key: Buffer]>;
  /** Wrapped keys to unwrap with the key-encryption key, by subject. */
  wrapped: Array<[subject: string, wrapped: Buffer]>;
  /**
   * The sealed members to open, one per index across the four lists (flat lists: one array object
   * to copy to the worker rather than one per member). The event id is their additional
   * authenticated data.
   */
  ids: string[];
  subjects: string[];
  ivs: string[];
  cts: string[];
}

export interface OpenResult {
  /** Each wrapped key unwrapped, or null when it failed to (the caller unwraps it again and sees why). */
  unwrapped: Array<[subject: string, key: Uint8Array | null]>;
  /**
   * A JSON array: each member's opened fields (an object), or null where it failed to open (the
   * caller opens it again and sees why).
   */
  plains: string;
}

export class SealedOpener {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (r: OpenResult) => void; reject: (e: Error) => void }
  >();

  constructor(private readonly kek: Buffer) {}

  open(request: OpenRequest): Promise<OpenResult> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    return new Promise<OpenResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...request });
    });
  }

  async close() {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { kek: this.kek } });
    // Idle between batches: it must not keep a finished process alive.
    worker.unref();
    worker.on('message', (m: { id: number } & OpenResult) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      p?.resolve(m);
    });
    const failAll = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`the opening worker exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}

// The bank's state: users, answer rules, the answer delay, what it received and when, the answers it
// still owes (with their due times, so a restart still sends them), faults, and its counters. Kept in
// `<stateDir>/state.json`, written whole to a new file then renamed over the old one; the host key
// beside it, made once (0600) so a second start shows the same fingerprint.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import ssh2, { type ParsedKey } from 'ssh2';
import type {
  AnswerRule,
  BankFaults,
  BankSandboxOptions,
  BankUser,
  ReceivedFile,
  ScheduledAnswer,
} from './types.js';

// ssh2 is CommonJS: its parts come from the default export.
const { utils } = ssh2;

interface Saved {
  version: 1;
  users: BankUser[] | null;
  rules: AnswerRule[] | null;
  answerDelaySeconds: number | null;
  received: ReceivedFile[];
  scheduled: ScheduledAnswer[];
  faults: BankFaults;
  /** Per ODFI: the last answer-file number of each kind and day, and the next answer trace sequence. */
  counters: Record<string, { files: Record<string, number>; trace: number }>;
}

const empty = (): Saved => ({
  version: 1,
  users: null,
  rules: null,
  answerDelaySeconds: null,
  received: [],
  scheduled: [],
  faults: { refuseUploads: 0, dropAfterWrite: 0 },
  counters: {},
});

export class BankState {
  data: Saved;
  readonly file: string;
  readonly hostKeyFile: string;
  hostKey: Buffer = Buffer.alloc(0);

  constructor(private readonly options: BankSandboxOptions) {
    mkdirSync(options.stateDir, { recursive: true, mode: 0o700 });
    this.file = path.join(options.stateDir, 'state.json');
    this.hostKeyFile = path.join(options.stateDir, 'host_key');
    this.data = existsSync(this.file) ? (JSON.parse(readFileSync(this.file, 'utf8')) as Saved) : empty();
    if (this.data.version !== 1) this.data = empty();
    this.hostKey = existsSync(this.hostKeyFile) ? readFileSync(this.hostKeyFile) : this.rotateHostKey();
    chmodSync(this.hostKeyFile, 0o600);
    for (const u of this.users) this.ensureFolders(u.routing);
    this.save();
  }

  get users(): BankUser[] {
    return this.data.users ?? this.options.users ?? [];
  }
  get rules(): AnswerRule[] {
    return this.data.rules ?? this.options.rules ?? [];
  }
  get answerDelayMs(): number {
    return (this.data.answerDelaySeconds ?? this.options.answerDelaySeconds ?? 20) * 1000;
  }

  setUsers(users: BankUser[]) {
    for (const u of users)
      if (!/^\d{9}$/.test(u.routing) || !u.username || (!u.password && !u.publicKey))
        throw new Error('a user needs a 9-digit routing, a username and a password or a public key');
    this.data.users = users;
    for (const u of users) this.ensureFolders(u.routing);
    this.save();
  }

  /** A new ed25519 host key, kept for the next start: a client pinning the old one must refuse it. */
  rotateHostKey(): Buffer {
    const pair = utils.generateKeyPairSync('ed25519');
    const tmp = `${this.hostKeyFile}.${process.pid}.tmp`;
    writeFileSync(tmp, pair.private, { mode: 0o600 });
    renameSync(tmp, this.hostKeyFile);
    this.hostKey = Buffer.from(pair.private);
    return this.hostKey;
  }

  /** As OpenSSH prints it: `SHA256:` and the unpadded base64 of the public key blob's digest. */
  hostKeyFingerprint(): string {
    return fingerprintOf(this.hostKey);
  }

  folder(routing: string, box: 'inbox' | 'outbox') {
    return path.join(this.options.stateDir, routing, box);
  }
  ensureFolders(routing: string) {
    for (const box of ['inbox', 'outbox'] as const) mkdirSync(this.folder(routing, box), { recursive: true });
  }

  /** The next number of an answer file of this ODFI, kind and day (`RET_<date>` → RET_<date>_<n>). */
  nextFileNumber(routing: string, prefix: string): number {
    const c = this.counter(routing);
    c.files[prefix] = (c.files[prefix] ?? 0) + 1;
    return c.files[prefix];
  }
  counter(routing: string) {
    this.data.counters[routing] ??= { files: {}, trace: 1 };
    return this.data.counters[routing];
  }

  /** Users, rules, delay back to the start's options; files, answers, faults and counters gone. */
  reset() {
    this.data = empty();
    for (const entry of readdirSync(this.options.stateDir))
      if (/^\d{9}$/.test(entry))
        rmSync(path.join(this.options.stateDir, entry), { recursive: true, force: true });
    for (const u of this.users) this.ensureFolders(u.routing);
    this.save();
  }

  save() {
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.data, null, 1), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}

export function fingerprintOf(key: Buffer | string): string {
  const parsed = utils.parseKey(key);
  if (parsed instanceof Error) throw parsed;
  const one = (Array.isArray(parsed) ? parsed[0] : parsed) as ParsedKey;
  return `SHA256:${createHash('sha256').update(one.getPublicSSH()).digest('base64').replace(/=+$/, '')}`;
}

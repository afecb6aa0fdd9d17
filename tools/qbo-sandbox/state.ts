// The simulator's state: seeded companies, codes, tokens, fault rules, the request log, requestid
// replays and the rate windows, with its clock (moved by /__sim/clock) and, with options.stateFile,
// the file that keeps it across restarts. Reset by /__sim/reset.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { type Realm, seedRealms } from './seed.js';
import type {
  AccessToken,
  Code,
  FaultRule,
  Grant,
  LoggedRequest,
  RefreshToken,
  SandboxClient,
  SandboxOptions,
} from './types.js';

export class SandboxState {
  readonly accessTtl: number;
  readonly refreshTtl: number;
  readonly grace: number;
  readonly codeTtl: number;
  readonly perMinute: number;
  readonly concurrent: number;
  readonly perSecond: number;
  readonly rateWindowMs: number;
  readonly hardTtl: number;
  readonly fileKey = randomBytes(32);
  /** Copies: a rotated secret (/__sim/clients/secret) changes the simulator's app, not the caller's object. */
  readonly clients: Map<string, SandboxClient>;

  clockOffsetMs = 0;
  realms = new Map<string, Realm>();
  codes = new Map<string, Code>();
  access = new Map<string, AccessToken>();
  refresh = new Map<string, RefreshToken>();
  faults: Array<FaultRule & { used: number }> = [];
  log: LoggedRequest[] = [];
  replays = new Map<string, { status: number; body: unknown }>();
  windows = new Map<string, number[]>();
  seconds = new Map<string, number[]>();
  inFlight = new Map<string, number>();
  saveQueued = false;

  constructor(private readonly options: SandboxOptions) {
    this.accessTtl = options.accessTtlSeconds ?? 3600;
    this.refreshTtl = options.refreshTtlSeconds ?? 8_726_400;
    this.grace = options.rotationGraceSeconds ?? 86_400;
    this.codeTtl = options.codeTtlSeconds ?? 300;
    this.perMinute = options.ratePerMinute ?? 500;
    this.concurrent = options.concurrentPerRealm ?? 10;
    this.perSecond = options.ratePerSecond ?? options.concurrentPerRealm ?? 10;
    this.rateWindowMs = (options.rateWindowSeconds ?? 60) * 1000;
    this.hardTtl = options.refreshHardTtlSeconds ?? 157_680_000;
    this.reset();
    if (options.stateFile && !this.restore(options.stateFile)) this.saveNow();
    this.clients = new Map(options.clients.map((c) => [c.clientId, { ...c }]));
  }

  /** The simulator's clock: the real one moved by /__sim/clock. */
  readonly now = () => Date.now() + this.clockOffsetMs;
  /** The clock as Intuit writes it in an answer's `time`. */
  readonly time = () => new Date(this.now()).toISOString().replace('Z', '-00:00');

  reset() {
    this.realms = new Map(
      seedRealms({
        seed: this.options.seed,
        vendorsPerRealm: this.options.vendorsPerRealm,
        billsPerRealm: this.options.billsPerRealm,
      }).map((r) => [r.realmId, r]),
    );
    this.codes = new Map();
    this.access = new Map();
    this.refresh = new Map();
    this.faults = [];
    this.log = [];
    this.replays = new Map();
    this.windows = new Map();
    this.seconds = new Map();
    this.inFlight = new Map();
    this.clockOffsetMs = 0;
  }

  /** Grants are shared by reference between codes and tokens: saved once each, by id. */
  snapshot() {
    const grants = new Map<string, Grant>();
    const ref = (g: Grant | null) => {
      if (!g) return null;
      grants.set(g.id, g);
      return g.id;
    };
    const codeRows = [...this.codes].map(([k, c]) => [k, { ...c, grant: ref(c.grant) }]);
    const accessRows = [...this.access].map(([k, t]) => [k, { ...t, grant: ref(t.grant) }]);
    const refreshRows = [...this.refresh].map(([k, t]) => [k, { ...t, grant: ref(t.grant) }]);
    return {
      version: 1,
      savedAt: new Date().toISOString(),
      realms: [...this.realms.values()],
      grants: [...grants.values()],
      codes: codeRows,
      access: accessRows,
      refresh: refreshRows,
      replays: [...this.replays],
    };
  }
  restore(file: string): boolean {
    if (!existsSync(file)) return false;
    const data = JSON.parse(readFileSync(file, 'utf8')) as ReturnType<SandboxState['snapshot']>;
    if (data.version !== 1) return false;
    const grants = new Map(data.grants.map((g) => [g.id, g]));
    const grantOf = (id: unknown) => grants.get(String(id))!;
    this.realms = new Map(data.realms.map((r) => [r.realmId, r]));
    this.codes = new Map(
      (data.codes as Array<[string, Code & { grant: string | null }]>).map(([k, c]) => [
        k,
        { ...c, grant: c.grant ? grantOf(c.grant) : null },
      ]),
    );
    this.access = new Map(
      (data.access as Array<[string, { grant: string; expiresAt: number }]>).map(([k, t]) => [
        k,
        { ...t, grant: grantOf(t.grant) },
      ]),
    );
    this.refresh = new Map(
      (data.refresh as Array<[string, { grant: string; expiresAt: number; graceUntil: number | null }]>).map(
        ([k, t]) => [k, { ...t, grant: grantOf(t.grant) }],
      ),
    );
    this.replays = new Map(data.replays);
    return true;
  }
  saveNow() {
    this.saveQueued = false;
    if (!this.options.stateFile) return;
    mkdirSync(dirname(this.options.stateFile), { recursive: true });
    const tmp = `${this.options.stateFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.snapshot()), { mode: 0o600 });
    renameSync(tmp, this.options.stateFile);
  }
  /** After a change: one write for the changes of this turn of the event loop. */
  save() {
    if (!this.options.stateFile || this.saveQueued) return;
    this.saveQueued = true;
    setImmediate(() => this.saveNow());
  }
}

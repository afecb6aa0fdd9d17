// The bank sandbox's shapes: its users, its answer rules, what it received and what it will answer.

/** A login at the bank: one of an ODFI's users, by password, by public key (OpenSSH line), or both. */
export interface BankUser {
  /** The ODFI's 9-digit routing number: the user sees that ODFI's folders only. */
  routing: string;
  username: string;
  password?: string;
  /** `ssh-ed25519 AAAA… comment` or `ssh-rsa AAAA… comment`. */
  publicKey?: string;
}

/** What the receiver's bank (RDFI) answers to an entry (reference/ach-returns.md §1, §3). */
export type BankAnswer =
  | { kind: 'return'; code: string; addendaInformation?: string; dateOfDeath?: string }
  | {
      kind: 'noc';
      code: 'C01';
      correctedAccountNumber?: string;
      /** The entry's account with its last digits replaced by these (a rule matched by suffix). */
      correctedAccountSuffix?: string;
    }
  | { kind: 'noc'; code: 'C02'; correctedRoutingNumber: string }
  | { kind: 'noc'; code: 'C03'; correctedRoutingNumber: string; correctedAccountNumber: string }
  | { kind: 'noc'; code: 'C04'; correctedName: string }
  /** Without a code: the entry's own, checking ↔ savings (22 ↔ 32, 23 ↔ 33). */
  | { kind: 'noc'; code: 'C05'; correctedTransactionCode?: string }
  | { kind: 'noc'; code: 'C06'; correctedAccountNumber: string; correctedTransactionCode?: string }
  | {
      kind: 'noc';
      code: 'C07';
      correctedRoutingNumber: string;
      correctedAccountNumber: string;
      correctedTransactionCode?: string;
    }
  | { kind: 'noc'; code: 'C09'; correctedIdentification: string }
  | { kind: 'noc'; code: 'C13' };

export interface AnswerRule {
  match: { accountNumber?: string; accountSuffix?: string };
  answer: BankAnswer;
}

/** An accepted entry as it was uploaded: its batch's header line and its own line. */
export interface OriginalEntry {
  batchHeader: string;
  entry: string;
}

export interface AnswerItem extends OriginalEntry {
  answer: BankAnswer;
}

export interface ReceivedFile {
  routing: string;
  name: string;
  receivedAt: string;
  sha256: string;
  size: number;
  status: 'accepted' | 'rejected';
  /** The answer file written into /outbox. */
  answerFile: string;
  reason?: string;
  entryCount?: number;
  totalCreditCents?: number;
}

export interface ScheduledAnswer {
  id: string;
  routing: string;
  sourceFile: string;
  kind: 'return' | 'noc';
  /** Epoch milliseconds. */
  dueAt: number;
  items: AnswerItem[];
}

export interface BankFaults {
  /** The next N uploads are refused at their open with a permission error. */
  refuseUploads: number;
  /** The next N uploads land (and are answered), then the connection closes before their close is answered. */
  dropAfterWrite: number;
}

export interface BankSandboxOptions {
  /** Where the host key, the state file and every ODFI's folders live (`.local/bank-sandbox`). */
  stateDir: string;
  /** 0 or omitted: any free port. */
  sftpPort?: number;
  hooksPort?: number;
  host?: string;
  /** Used when the state has none yet (a first start) and again by a reset. */
  users?: BankUser[];
  rules?: AnswerRule[];
  answerDelaySeconds?: number;
}

export interface BankSandbox {
  sftpPort: number;
  hooksPort: number;
  /** `http://host:port`, the test hooks' base. */
  hooksUrl: string;
  /** The current host key's fingerprint as OpenSSH prints it (`SHA256:…`, unpadded base64). */
  hostKeyFingerprint(): string;
  close(): Promise<void>;
}

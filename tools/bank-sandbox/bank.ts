// What the bank does with an upload and what it answers later: on the upload's close its own checks
// (checks.ts), then `<name>.ack` or `<name>.rej` into /outbox; for each accepted entry a rule matches,
// a return or NOC owed after the answer delay, written as RET_/COR_<date>_<n>.ach (writer.ts).
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkNachaFile, field } from './checks.js';
import type { BankState } from './state.js';
import type { AnswerItem, AnswerRule, ReceivedFile } from './types.js';
import { writeAnswerFile } from './writer.js';

const dollars = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

export function ruleFor(rules: AnswerRule[], entry: string): AnswerRule | undefined {
  const account = field(entry, 13, 29).trim();
  return rules.find(
    ({ match }) =>
      (match.accountNumber !== undefined || match.accountSuffix !== undefined) &&
      (match.accountNumber === undefined || match.accountNumber === account) &&
      (match.accountSuffix === undefined || account.endsWith(match.accountSuffix)),
  );
}

export class Bank {
  private timer: NodeJS.Timeout | null = null;
  constructor(private readonly state: BankState) {}

  received(routing: string, name: string): ReceivedFile | undefined {
    return this.state.data.received.find((r) => r.routing === routing && r.name === name);
  }

  /** A second upload under a name already received: refused, with a rejection of its own. */
  refuseDuplicate(routing: string, name: string): string {
    const first = this.received(routing, name)!;
    const outbox = this.state.folder(routing, 'outbox');
    let n = 2;
    while (existsSync(path.join(outbox, `${name}.${n}.rej`))) n++;
    const reason = `duplicate file: a file named ${name} was received at ${first.receivedAt} (sha256 ${first.sha256})`;
    writeFileSync(
      path.join(outbox, `${name}.${n}.rej`),
      `status: rejected\nfile: ${name}\nreceived: ${new Date().toISOString()}\nreason: ${reason}\n`,
    );
    return reason;
  }

  /** An upload closed (or its connection ended): the bank's checks, its answer, the answers it owes. */
  receive(routing: string, name: string): ReceivedFile {
    const bytes = readFileSync(path.join(this.state.folder(routing, 'inbox'), name));
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const receivedAt = new Date();
    const result = checkNachaFile(bytes.toString('latin1'), routing);
    const outbox = this.state.folder(routing, 'outbox');
    const base = { routing, name, receivedAt: receivedAt.toISOString(), sha256, size: bytes.length };
    let record: ReceivedFile;
    if (!result.ok) {
      record = { ...base, status: 'rejected', answerFile: `${name}.rej`, reason: result.reason };
      writeFileSync(
        path.join(outbox, record.answerFile),
        `status: rejected\nfile: ${name}\nreceived: ${base.receivedAt}\nsha256: ${sha256}\nreason: ${result.reason}\n`,
      );
    } else {
      record = {
        ...base,
        status: 'accepted',
        answerFile: `${name}.ack`,
        entryCount: result.entryCount,
        totalCreditCents: result.totalCreditCents,
      };
      writeFileSync(
        path.join(outbox, record.answerFile),
        `status: accepted\nfile: ${name}\nreceived: ${base.receivedAt}\nsha256: ${sha256}\nentries: ${result.entryCount}\n` +
          `total credit: ${dollars(result.totalCreditCents)}\ntotal debit: ${dollars(result.totalDebitCents)}\n`,
      );
      const owed: Record<'return' | 'noc', AnswerItem[]> = { return: [], noc: [] };
      for (const e of result.entries) {
        const rule = ruleFor(this.state.rules, e.entry);
        if (rule) owed[rule.answer.kind].push({ ...e, answer: rule.answer });
      }
      const dueAt = receivedAt.getTime() + this.state.answerDelayMs;
      for (const kind of ['return', 'noc'] as const)
        if (owed[kind].length)
          this.state.data.scheduled.push({
            id: randomUUID(),
            routing,
            sourceFile: name,
            kind,
            dueAt,
            items: owed[kind],
          });
    }
    this.state.data.received.push(record);
    this.state.save();
    this.arm();
    return record;
  }

  /** Writes the answers due by `now` (all of them without it); returns the files' names. */
  answerDue(now: number | null = Date.now()): string[] {
    const due = this.state.data.scheduled.filter((s) => now === null || s.dueAt <= now);
    const written: string[] = [];
    for (const s of due) {
      const createdAt = new Date();
      const date = createdAt.toISOString().slice(0, 10).replaceAll('-', '');
      const counter = this.state.counter(s.routing);
      const { content, nextTraceSequence } = writeAnswerFile({
        kind: s.kind,
        odfiRouting: s.routing,
        items: s.items,
        createdAt,
        traceSequence: counter.trace,
      });
      counter.trace = nextTraceSequence;
      const prefix = `${s.kind === 'return' ? 'RET' : 'COR'}_${date}`;
      const name = `${prefix}_${this.state.nextFileNumber(s.routing, prefix)}.ach`;
      // Whole or not at all: a reader listing /outbox never sees half a file.
      const outbox = this.state.folder(s.routing, 'outbox');
      const tmp = path.join(path.dirname(outbox), `.${name}.tmp`);
      writeFileSync(tmp, content);
      renameSync(tmp, path.join(outbox, name));
      this.state.data.scheduled = this.state.data.scheduled.filter((x) => x.id !== s.id);
      this.state.save();
      written.push(name);
    }
    this.arm();
    return written;
  }

  /** One timer for the earliest answer owed; due times live in the state, so a restart re-arms it. */
  arm() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const next = Math.min(...this.state.data.scheduled.map((s) => s.dueAt));
    if (!Number.isFinite(next)) return;
    this.timer = setTimeout(() => this.answerDue(), Math.min(Math.max(0, next - Date.now()), 2 ** 31 - 1));
    this.timer.unref();
  }

  stop() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

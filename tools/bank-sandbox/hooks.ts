// The test hooks under /__bank, on their own port: reset, users, rules, the answer delay, answers
// written now, the folders' listings, a new host key, and faults (uploads refused, or a connection
// closed after an upload landed but before its close was answered).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Bank } from './bank.js';
import type { BankState } from './state.js';
import type { AnswerRule, BankUser } from './types.js';

const listing = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => !n.startsWith('.'))
        .sort()
        .map((name) => {
          const file = path.join(dir, name);
          return {
            name,
            size: statSync(file).size,
            modifiedAt: statSync(file).mtime.toISOString(),
            sha256: createHash('sha256').update(readFileSync(file)).digest('hex'),
          };
        })
    : [];

export function registerBankHooks(
  server: FastifyInstance,
  ctx: { state: BankState; bank: Bank; rotateHostKey: () => string },
) {
  const { state, bank } = ctx;
  server.post('/__bank/reset', async () => {
    bank.stop();
    state.reset();
    return { ok: true };
  });
  server.post('/__bank/users', async (req, reply) => {
    const users = ((req.body ?? {}) as { users?: BankUser[] }).users;
    if (!Array.isArray(users)) return reply.status(400).send({ error: 'users: an array is required' });
    try {
      state.setUsers(users);
    } catch (err) {
      return reply.status(400).send({ error: (err as Error).message });
    }
    return { users: users.length };
  });
  server.post('/__bank/rules', async (req, reply) => {
    const rules = ((req.body ?? {}) as { rules?: AnswerRule[] }).rules;
    if (!Array.isArray(rules)) return reply.status(400).send({ error: 'rules: an array is required' });
    state.data.rules = rules;
    state.save();
    return { rules: rules.length };
  });
  server.post('/__bank/delay', async (req, reply) => {
    const seconds = ((req.body ?? {}) as { seconds?: number }).seconds;
    if (typeof seconds !== 'number' || seconds < 0)
      return reply.status(400).send({ error: 'seconds: a number ≥ 0 is required' });
    state.data.answerDelaySeconds = seconds;
    state.save();
    return { seconds };
  });
  server.post('/__bank/answer-now', async () => ({ written: bank.answerDue(null) }));
  server.get('/__bank/files', async (req) => {
    const only = (req.query as { routing?: string }).routing;
    const routings = new Set([
      ...state.users.map((u) => u.routing),
      ...state.data.received.map((r) => r.routing),
    ]);
    return {
      odfis: [...routings]
        .filter((r) => !only || r === only)
        .map((routing) => ({
          routing,
          inbox: listing(state.folder(routing, 'inbox')),
          outbox: listing(state.folder(routing, 'outbox')),
        })),
    };
  });
  /** What the bank received and the answers it still owes (when, how many entries), no account numbers. */
  server.get('/__bank/received', async () => ({
    received: state.data.received,
    scheduled: state.data.scheduled.map(({ items, ...s }) => ({
      ...s,
      dueAt: new Date(s.dueAt).toISOString(),
      entries: items.length,
      codes: items.map((i) => i.answer.code),
    })),
  }));
  server.post('/__bank/rotate-host-key', async () => ({ hostKeyFingerprint: ctx.rotateHostKey() }));
  server.post('/__bank/faults', async (req) => {
    const b = (req.body ?? {}) as { refuseUploads?: number; dropAfterWrite?: number; clear?: boolean };
    if (b.clear) state.data.faults = { refuseUploads: 0, dropAfterWrite: 0 };
    if (typeof b.refuseUploads === 'number') state.data.faults.refuseUploads = b.refuseUploads;
    if (typeof b.dropAfterWrite === 'number') state.data.faults.dropAfterWrite = b.dropAfterWrite;
    state.save();
    return { faults: state.data.faults };
  });
}

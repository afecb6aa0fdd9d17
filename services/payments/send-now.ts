// Send now: an ADMIN flushes the company's files waiting for their cut-off window (a bank's
// "trigger cut-off"), recorded on `achcutoff-<companyId>` with the deliveries it names; the bank
// delivery process manager then tries each at once, through the same once-only delivery.
import { z } from 'zod';
import type { PaymentsEvent } from '../../schema/payments/events.js';
import type { CommandContext } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';

type CutoffEvent = Extract<PaymentsEvent, { type: 'AchCutoffTriggered' }>;
type Trigger = { type: 'TriggerCutoff'; facts: CutoffEvent['data'] };

export const cutoffStreamId = (companyId: number) => `achcutoff-${companyId}`;

export const cutoffDecider = {
  initialState: () => null,
  evolve: () => null,
  decide: (command) => [{ type: 'AchCutoffTriggered', data: command.facts }],
  streamId: cutoffStreamId,
} satisfies Decider<null, Trigger, CutoffEvent>;

export const SendNowInput = z.object({ companyId: z.coerce.number().int().positive().max(2_147_483_647) });

export interface SendNowResult {
  companyId: number;
  files: number;
  message: string;
}

export async function sendWaitingFilesNow(
  app: AppServices,
  actor: Actor | null,
  input: unknown,
  ctx: CommandContext = {},
): Promise<SendNowResult> {
  authorize(actor, 'payments.deliver');
  const parsed = SendNowInput.safeParse(input);
  if (!parsed.success) throw new DomainError('VALIDATION', 'companyId must be a company id');
  const { companyId } = parsed.data;
  const connection = await app.bankConnections.connection(companyId);
  if (connection.mode !== 'sftp')
    throw new DomainError(
      'CONFLICT',
      'This company sends its files by hand: there is nothing to send over SFTP',
    );
  const waiting = await app.db
    .selectFrom('ach_deliveries')
    .select(['approval_id', 'file_id'])
    .where('company_id', '=', companyId)
    .where('status', '=', 'scheduled')
    .orderBy('approval_id')
    .execute();
  if (waiting.length > 0)
    await app.commands.handle(
      cutoffDecider,
      cutoffStreamId(companyId),
      {
        type: 'TriggerCutoff',
        facts: {
          companyId,
          byUserId: actor.id,
          deliveries: waiting.map((w) => ({ approvalId: w.approval_id, fileId: w.file_id })),
          at: new Date().toISOString(),
        },
      },
      { userId: String(actor.id), request: actor.request, ...ctx },
    );
  return {
    companyId,
    files: waiting.length,
    message:
      waiting.length === 0
        ? 'No file is waiting for its window'
        : `${waiting.length} waiting file${waiting.length === 1 ? '' : 's'} will be sent now`,
  };
}

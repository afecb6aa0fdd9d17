// What every command on an existing approval shares: the row it acts on (in the reader's companies,
// held by the read model), and its answer from the read model once it has applied the events.

import { answerAfterWrite } from '../app/answer-after-write.js';
import type { CommandContext } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import { type Actor, commandContext } from '../auth/permissions.js';
import type { Position } from '../eventstore/port.js';
import { type ApprovalState, approvalDecider, approvalStreamId } from './approval-decider.js';
import { withDetail } from './detail.js';
import { type ApprovalDto, findRow, parseApprovalId, requireActionableRow, toDtos } from './rows.js';

/**
 * The answer after a command on an approval: its row, once the read model has applied the command's
 * events (answerAfterWrite: 503 if a new approval is still not shown after two waits), mapped as
 * every read maps it. The bills and recipients are not in the read model: they are opened from the
 * log, here the stream as the command left it.
 */
export function answerApproval(
  app: AppServices,
  approvalId: string,
  position: Position | null,
  state: ApprovalState,
): Promise<ApprovalDto> {
  return answerAfterWrite(app, position, ['approvals'], async () => {
    const row = await findRow(app, approvalId);
    return row ? withDetail(app, (await toDtos(app, [row]))[0], state) : null;
  });
}

export async function onApproval(
  app: AppServices,
  actor: Actor,
  id: unknown,
  command: Parameters<typeof approvalDecider.decide>[0],
  ctx: CommandContext = commandContext(actor),
) {
  const approvalId = parseApprovalId(id);
  await requireActionableRow(app, actor, approvalId);
  const r = await app.commands.handle(approvalDecider, approvalStreamId(approvalId), command, ctx);
  return { approvalId, ...r };
}

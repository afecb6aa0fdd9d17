// The company's segregation-of-duties policy (ADMIN): read from its own stream, answered from the read
// model the approval reads judge with.
import type { z } from 'zod';
import type { ApprovalPolicy as ApprovalPolicyAnswer } from '../../schema/approvals/answers.js';
import { ApprovalPolicyInput } from '../../schema/approvals/commands.js';
import { answerAfterWrite } from '../app/answer-after-write.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize, commandContext } from '../auth/permissions.js';
import { parseInput } from '../shared/errors.js';
import { liveCompany, parseCompanyId } from './checks.js';
import { type ApprovalPolicy, approvalPolicyDecider, DEFAULT_POLICY } from './policy-decider.js';
import { policiesOf } from './rows.js';

export async function policyOf(app: AppServices, companyId: number): Promise<ApprovalPolicy> {
  return (await app.commands.load(approvalPolicyDecider, approvalPolicyDecider.streamId(companyId))).state;
}

export type ApprovalPolicyDto = z.infer<typeof ApprovalPolicyAnswer>;

/** GET /policies/{companyId} (ADMIN): the creator may not approve, by default. */
export async function getApprovalPolicy(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
): Promise<ApprovalPolicyDto> {
  authorize(actor, 'approvals.policy');
  const companyId = parseCompanyId(id);
  await liveCompany(app, companyId);
  return { companyId, ...(await policyOf(app, companyId)) };
}

/** PUT /policies/{companyId} (ADMIN): creator may not approve; the second-approval threshold. */
export async function setApprovalPolicy(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  body: unknown,
): Promise<ApprovalPolicyDto> {
  authorize(actor, 'approvals.policy');
  const companyId = parseCompanyId(id);
  const input = parseInput(ApprovalPolicyInput, body);
  await liveCompany(app, companyId);
  const r = await app.commands.handle(
    approvalPolicyDecider,
    approvalPolicyDecider.streamId(companyId),
    {
      type: 'SetApprovalPolicy',
      companyId,
      byUserId: actor.id,
      now: new Date().toISOString(),
      creatorMayNotApprove: input.creatorMayNotApprove,
      secondApprovalThreshold: input.secondApprovalThreshold,
      assignedStaffOnly: input.assignedStaffOnly ?? (await policyOf(app, companyId)).assignedStaffOnly,
    },
    commandContext(actor),
  );
  // Answered from the read model the approval reads judge with (who may approve): the next screen
  // sees the change. A command that changed nothing leaves a company that never set one on the default.
  return answerAfterWrite(app, r.position, ['approval_policies'], async () => {
    const policy = (await policiesOf(app, [companyId])).get(companyId);
    if (policy) return { companyId, ...policy };
    return r.position === null ? { companyId, ...DEFAULT_POLICY } : null;
  });
}

// Confirming a payment step through an e-mail link, without signing in:
// verify-token (what the link may do, and for whom), and the confirmation itself. The token's
// signature, approval and action are checked here (link-token.ts); whether the link is still good
// (known, unused, unexpired, not replaced by a regenerated file) and the status allows the step are
// the decider's rules, asked by a dry run for verify-token and enforced by the command itself.
import type { ApprovalStatus } from '../../../schema/approvals/events.js';
import { LINK_ACTIONS, type LinkAction } from '../../../schema/approvals/payment-events.js';
import type { AppServices } from '../../app/context.js';
import { awaitProjections } from '../../app/context.js';
import { DomainError } from '../../shared/domain-errors.js';
import { AppError } from '../../shared/errors.js';
import { paymentClock } from '../../shared/payment-clock.js';
import type { RequestContext } from '../../shared/request-context.js';
import { type ApprovalState, approvalDecider, approvalStreamId } from '../approval-decider.js';
import { withDetail } from '../detail.js';
import { findRow, parseApprovalId, toDtos } from '../rows.js';
import { type ApprovalView, withViewer } from '../viewer.js';
import { LinkTokenError, verifyLinkToken } from './link-token.js';
import { companyName, latestFile, loadApproval, managerPerson } from './links.js';
import { type ResultClaims, signResultRef, type VerifiedResult, verifyResultRef } from './result-ref.js';

/** The link's refusal codes: the page reads VALIDATION_FAILED as 'Status Update Not Available'. */
export type LinkRefusalCode = 'BAD_REQUEST' | 'INVALID_TOKEN' | 'VALIDATION_FAILED' | 'NOT_FOUND';

/** A refused link or step, with the HTTP status, the spec's code and the text the pages show. */
export class LinkRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: LinkRefusalCode,
    message: string,
  ) {
    super(message);
    this.name = 'LinkRefusal';
  }
}

export const MISSING_PARAMETERS = 'Missing required parameters';
export const INVALID_ACTION = 'Invalid action type';

/** The status each action moves to, and the order of the payment statuses. */
const TARGET: Record<LinkAction, ApprovalStatus> = {
  'bank-uploaded': 'BANK_UPLOADED',
  'payment-completed': 'PAYMENT_COMPLETED',
};
const ORDER: readonly ApprovalStatus[] = ['NACHA_GENERATED', 'BANK_UPLOADED', 'PAYMENT_COMPLETED'];
const reached = (status: ApprovalStatus | null, target: ApprovalStatus) =>
  status !== null && ORDER.indexOf(status) >= ORDER.indexOf(target);

/** The approval is already where the action would take it (or further): nothing to do. */
export const alreadyDone = (status: ApprovalStatus | null, action: LinkAction) =>
  reached(status, TARGET[action]);

export function parseAction(action: unknown): LinkAction | undefined {
  if (action === undefined || action === '') return undefined;
  if (!LINK_ACTIONS.includes(action as LinkAction)) throw new LinkRefusal(400, 'BAD_REQUEST', INVALID_ACTION);
  return action as LinkAction;
}

function refusalOf(err: unknown): unknown {
  if (err instanceof LinkTokenError) return new LinkRefusal(403, 'INVALID_TOKEN', err.message);
  if (err instanceof DomainError) {
    // A status that does not allow the step: the spec's 'Cannot update approval with status X'.
    if (err.code === 'CONFLICT') return new LinkRefusal(409, 'VALIDATION_FAILED', err.message);
    if (err.code === 'FORBIDDEN') return new LinkRefusal(403, 'INVALID_TOKEN', err.message);
    if (err.code === 'NOT_FOUND') return new LinkRefusal(404, 'NOT_FOUND', err.message);
  }
  if (err instanceof AppError && err.code === 'NOT_FOUND')
    return new LinkRefusal(404, 'NOT_FOUND', err.message);
  return err;
}

export interface OpenedLink {
  approvalId: string;
  action: LinkAction;
  linkId: string;
  expiresAt: string;
  /** The link's recipient, from its ApprovalLinkIssued event (opened). */
  recipient: string;
  /** The approval's manager's address now (null: none): the decider's rule on who a link still serves. */
  manager: string | null;
  state: ApprovalState;
}

/**
 * The link a token names on this approval: signature, approval, action (when given) and expiry of
 * the token, then its ApprovalLinkIssued event. Throws LinkRefusal.
 */
export async function openLink(
  app: AppServices,
  input: { id: unknown; token: unknown; action?: unknown },
): Promise<OpenedLink> {
  try {
    if (typeof input.token !== 'string' || !input.token || typeof input.id !== 'string' || !input.id)
      throw new LinkRefusal(400, 'BAD_REQUEST', MISSING_PARAMETERS);
    const wanted = parseAction(input.action);
    const approvalId = parseApprovalId(input.id);
    const claims = await verifyLinkToken(app.config.JWT_SECRET, input.token, { approvalId, action: wanted });
    const { state, events } = await loadApproval(app, approvalId);
    if (!state.exists || state.deleted) throw new AppError('NOT_FOUND', 'Approval not found');
    const issued = events.find((e) => e.type === 'ApprovalLinkIssued' && e.data.linkId === claims.linkId);
    if (issued?.type !== 'ApprovalLinkIssued')
      throw new DomainError('FORBIDDEN', 'This link is not valid for this approval');
    return {
      approvalId,
      action: issued.data.action,
      linkId: claims.linkId,
      expiresAt: issued.data.expiresAt,
      recipient: issued.data.recipient,
      manager: (await managerPerson(app, state.managerId))?.address ?? null,
      state,
    };
  } catch (err) {
    throw refusalOf(err);
  }
}

const stepCommand = (link: OpenedLink, now: string) => ({
  type: link.action === 'bank-uploaded' ? ('MarkBankUploaded' as const) : ('MarkPaymentCompleted' as const),
  byUserId: null,
  link: { linkId: link.linkId, recipient: link.recipient, manager: link.manager },
  now,
});

/**
 * 'done' when the approval is already where the link would take it; 'open' when the step may run
 * now, by the decider's own rules (a dry run: nothing is appended); else throws LinkRefusal.
 */
export function stepStanding(link: OpenedLink): 'done' | 'open' {
  if (alreadyDone(link.state.status, link.action)) return 'done';
  try {
    approvalDecider.decide(stepCommand(link, paymentClock.now().toISOString()), link.state);
    return 'open';
  } catch (err) {
    throw refusalOf(err);
  }
}

export interface LinkUser {
  name: string;
  email: string;
  role: string;
}

/** Who the link was sent to: a user or manager with that address by name, else the address itself. */
async function linkUser(app: AppServices, address: string): Promise<LinkUser> {
  const lower = address.trim().toLowerCase();
  const user = await app.db
    .selectFrom('users')
    .select(['first_name', 'last_name', 'role'])
    .where('email_lower', '=', lower)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  const name = (first: string | null, last: string | null) =>
    [first, last].filter((s) => s?.trim()).join(' ') || address;
  if (user) return { name: name(user.first_name, user.last_name), email: address, role: user.role };
  const manager = await app.db
    .selectFrom('managers')
    .select(['first_name', 'last_name'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', lower))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return {
    name: manager ? name(manager.first_name, manager.last_name) : address,
    email: address,
    role: 'RECIPIENT',
  };
}

export function statusInfo(status: ApprovalStatus | null) {
  return {
    canMarkAsPaid: status === 'BANK_UPLOADED',
    isAlreadyPaid: status === 'PAYMENT_COMPLETED',
    canMarkAsUploaded: status === 'NACHA_GENERATED',
    isAlreadyUploaded: status === 'BANK_UPLOADED' || status === 'PAYMENT_COMPLETED',
  };
}

/** The approval as the link's page shows it (read model and detail; no viewer rights: not signed in). */
async function approvalView(
  app: AppServices,
  approvalId: string,
  state: ApprovalState,
): Promise<ApprovalView> {
  const row = await findRow(app, approvalId);
  if (!row) throw new LinkRefusal(404, 'NOT_FOUND', 'Approval not found');
  const dto = await withDetail(app, (await toDtos(app, [row]))[0], state);
  return withViewer(dto, null);
}

/**
 * GET /approvals/{id}/verify-token: the approval, the link's recipient, and what it may do. A link
 * whose step is already done (used, or done by another) answers only what the result needs: the
 * approval's id and status and the status info, with no recipient; the approval in full (manager,
 * vendors, bills, files) is for a link that can still act. One that cannot act is refused.
 */
export async function verifyApprovalLink(
  app: AppServices,
  input: { id: unknown; token: unknown; action?: unknown },
) {
  const link = await openLink(app, input);
  const status = link.state.status;
  const standing = stepStanding(link);
  const info = statusInfo(status);
  // What this link may do: only its own action.
  if (link.action === 'bank-uploaded') info.canMarkAsPaid = false;
  else info.canMarkAsUploaded = false;
  const stepDone = standing === 'done';
  return {
    approval: stepDone
      ? { id: link.approvalId, status: status! }
      : await approvalView(app, link.approvalId, link.state),
    user: stepDone ? null : await linkUser(app, link.recipient),
    statusInfo: info,
    link: { action: link.action, expiresAt: link.expiresAt, stepDone },
  };
}

export interface LinkConfirmation {
  approvalId: string;
  action: LinkAction;
  status: ApprovalStatus;
  /** The approval was already in the requested status (or past it): nothing was done. */
  noAction: boolean;
  /** The outcome, signed: what the result page may state (result-ref.ts). */
  resultRef: string;
}

/** A press's outcome signed for the result page. */
export const resultRefOf = (app: AppServices, claims: ResultClaims) =>
  signResultRef(app.config.JWT_SECRET, claims);

/**
 * A refused press's outcome signed for the result page: only for an approval id and action the
 * server could read (the result page shows neither otherwise), with the refusal's own text.
 */
export async function refusalResultRef(
  app: AppServices,
  input: { id: unknown; action: LinkAction | undefined; error: string },
): Promise<string | null> {
  if (!input.action) return null;
  let approvalId: string;
  try {
    approvalId = parseApprovalId(input.id);
  } catch {
    return null;
  }
  return resultRefOf(app, { approvalId, action: input.action, outcome: 'failure', error: input.error });
}

export const UNCONFIRMED_RESULT = 'This result could not be confirmed';

/** GET /direct-action-result?ref: the outcome a result reference states; refused when it is not ours or expired. */
export async function readLinkResult(app: AppServices, input: { ref: unknown }): Promise<VerifiedResult> {
  if (typeof input.ref !== 'string' || !input.ref) throw new AppError('VALIDATION', MISSING_PARAMETERS);
  const result = await verifyResultRef(app.config.JWT_SECRET, input.ref);
  if (!result) throw new AppError('FORBIDDEN', UNCONFIRMED_RESULT);
  return result;
}

/** POST /approvals/{id}/bank-uploaded|payment-completed?token: the step, by the link's recipient. */
export async function confirmByLink(
  app: AppServices,
  input: { id: unknown; token: unknown; action: LinkAction; request?: RequestContext },
): Promise<LinkConfirmation> {
  const link = await openLink(app, input);
  const answer = async (status: ApprovalStatus | null, noAction: boolean): Promise<LinkConfirmation> => ({
    approvalId: link.approvalId,
    action: link.action,
    status: status!,
    noAction,
    resultRef: await resultRefOf(app, {
      approvalId: link.approvalId,
      action: link.action,
      outcome: noAction ? 'no-action' : 'success',
      error: null,
    }),
  });
  if (alreadyDone(link.state.status, link.action)) return answer(link.state.status, true);
  try {
    const r = await app.commands.handle(
      approvalDecider,
      approvalStreamId(link.approvalId),
      stepCommand(link, paymentClock.now().toISOString()),
      { userId: null, request: input.request },
    );
    await awaitProjections(app, r.position, ['approvals']);
    return answer(r.state.status, false);
  } catch (err) {
    // Pressed twice at once: the other press did it.
    if (err instanceof DomainError && err.code === 'CONFLICT') {
      const { state } = await loadApproval(app, link.approvalId);
      if (alreadyDone(state.status, link.action)) return answer(state.status, true);
    }
    throw refusalOf(err);
  }
}

/** What the public confirmation page shows of the approval (no personal data: company, file, amount). */
export async function linkPageFacts(app: AppServices, link: OpenedLink) {
  const { events } = await loadApproval(app, link.approvalId);
  const file = latestFile(events);
  return {
    companyName: await companyName(app, link.state.companyId!),
    fileName: file?.fileName ?? null,
    totalCents: file?.totalCreditCents ?? null,
    effectiveDate: file?.effectiveDate ?? null,
    status: link.state.status,
  };
}

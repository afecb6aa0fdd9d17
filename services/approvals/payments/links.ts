// Who hears of an approval's payment steps, and the links they get. A link is one recipient, one
// action and one file version (ApprovalLinkIssued, its address sealed); its token carries the link's
// id only (link-token.ts). The link in the mail opens a public confirmation page that changes
// nothing; the action runs only when its button is pressed (services/approvals/api/rest/approval-link-routes.ts).

import { type ApprovalEvent, approvalEvents } from '../../../schema/approvals/events.js';
import type { LinkAction } from '../../../schema/approvals/payment-events.js';
import { companySubject } from '../../../schema/companies/events.js';
import { managerSubject } from '../../../schema/managers/events.js';
import { userSubject } from '../../../schema/users/events.js';
import { type CommandContext, eventIdFor } from '../../app/command-handler.js';
import type { AppServices } from '../../app/context.js';
import { appUrlOf } from '../../mail/send.js';
import { eventDecoder } from '../../shared/decider.js';
import { paymentClock } from '../../shared/payment-clock.js';
import { type ApprovalState, approvalDecider, approvalStreamId } from '../approval-decider.js';
import { signLinkToken } from './link-token.js';

const decode = eventDecoder(approvalEvents);

/** A person a mail goes to: the address, a name when known, and the data-key subject it is sealed under. */
export interface Person {
  address: string;
  name: string | null;
  /** `manager-7`, `user-3`, or the company's for an approval's plain recipients (their key seals them in events). */
  subject: string;
}

const fullName = (first: string | null, last: string | null) =>
  [first, last].filter((s) => s?.trim()).join(' ') || null;

export async function managerPerson(app: AppServices, managerId: number | null): Promise<Person | null> {
  if (managerId === null) return null;
  const m = await app.db
    .selectFrom('managers')
    .select(['id', 'first_name', 'last_name', 'email'])
    .where('id', '=', managerId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return m?.email
    ? { address: m.email, name: fullName(m.first_name, m.last_name), subject: managerSubject(m.id) }
    : null;
}

export async function userPerson(app: AppServices, userId: number | null): Promise<Person | null> {
  if (userId === null) return null;
  const u = await app.db
    .selectFrom('users')
    .select(['id', 'first_name', 'last_name', 'email'])
    .where('id', '=', userId)
    .where('deleted_at', 'is', null)
    .where('is_active', '=', true)
    .executeTakeFirst();
  return u?.email
    ? { address: u.email, name: fullName(u.first_name, u.last_name), subject: userSubject(u.id) }
    : null;
}

/** One mail per address (case aside), the first mention kept: a manager who is also a recipient hears once. */
function distinct(people: Array<Person | null>): Person[] {
  const seen = new Set<string>();
  const out: Person[] = [];
  for (const p of people) {
    if (!p) continue;
    const k = p.address.trim().toLowerCase();
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(p);
  }
  return out;
}

const recipientsOf = (state: ApprovalState): Person[] =>
  (state.recipients ?? []).map((address) => ({
    address,
    name: null,
    subject: companySubject(state.companyId!),
  }));

/** Who gets the links: the assigned manager first, then the approval's recipients. */
export async function linkRecipients(app: AppServices, state: ApprovalState): Promise<Person[]> {
  return distinct([await managerPerson(app, state.managerId), ...recipientsOf(state)]);
}

/** Who hears that the approval was paid: the manager, the recipients, its creator and its approvers. */
export async function stakeholders(app: AppServices, state: ApprovalState): Promise<Person[]> {
  return distinct([
    await managerPerson(app, state.managerId),
    ...recipientsOf(state),
    await userPerson(app, state.createdBy),
    await userPerson(app, state.firstApproval?.byUserId ?? null),
    await userPerson(app, state.approvedBy),
  ]);
}

/** The approval's state and its events decoded (opened: the port gives personal fields back). */
export async function loadApproval(app: AppServices, approvalId: string) {
  const { state, events } = await app.commands.load(approvalDecider, approvalStreamId(approvalId));
  return { state, events: events.map((e) => decode(e)) as ApprovalEvent[] };
}

/** The latest file's event (what the mails name: file, entries, total, effective date). */
export function latestFile(events: ApprovalEvent[]) {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e.type === 'NachaFileGenerated') return e.data;
  }
  return null;
}

export async function companyName(app: AppServices, companyId: number): Promise<string> {
  const c = await app.db
    .selectFrom('companies')
    .select('name')
    .where('id', '=', companyId)
    .executeTakeFirst();
  return c?.name ?? `Company ${companyId}`;
}

/** Where a link's mail sends its reader: the public confirmation page (a GET there changes nothing). */
export function confirmLinkUrl(
  appUrl: string,
  approvalId: string,
  action: LinkAction,
  token: string,
): string {
  const u = new URL(`/api/bill-approval/approvals/${encodeURIComponent(approvalId)}/confirm-link`, appUrl);
  u.searchParams.set('action', action);
  u.searchParams.set('token', token);
  return u.toString();
}

export interface IssuedLink {
  person: Person;
  /** The recipient's place in the list: with the job id, the mail's key. */
  index: number;
  linkId: string;
  url: string;
  expiresAt: string;
}

/**
 * Issues one link per recipient for this step. The link id and the command id derive from the job
 * and the recipient's place, so a job run again issues the same links (the command is appended once)
 * and mails the same URLs. A step already past (the file regenerated, the upload confirmed) issues none.
 */
export async function issueLinks(
  app: AppServices,
  input: { approvalId: string; action: LinkAction; jobId: string },
  ctx: CommandContext,
): Promise<IssuedLink[]> {
  const { state } = await loadApproval(app, input.approvalId);
  if (!state.exists) return [];
  const people = await linkRecipients(app, state);
  const ttlMs = app.config.LINK_TTL_DAYS * 86_400_000;
  const appUrl = appUrlOf(app.config);
  const out: IssuedLink[] = [];
  for (const [index, person] of people.entries()) {
    const linkId = eventIdFor(`link:${input.jobId}`, index);
    const now = new Date();
    const r = await app.commands.handle(
      approvalDecider,
      approvalStreamId(input.approvalId),
      {
        type: 'IssueLink',
        linkId,
        action: input.action,
        recipient: person.address,
        expiresAt: new Date(paymentClock.now().getTime() + ttlMs).toISOString(),
        now: now.toISOString(),
      },
      { ...ctx, commandId: `${input.jobId}_link_${index}` },
    );
    // The link as recorded (a run before this one may have issued it, with its own expiry).
    const link = r.state.payment.links[linkId];
    if (!link) continue;
    const token = await signLinkToken(app.config.JWT_SECRET, {
      linkId,
      approvalId: input.approvalId,
      action: input.action,
      expiresAt: link.expiresAt,
    });
    out.push({
      person,
      index,
      linkId,
      url: confirmLinkUrl(appUrl, input.approvalId, input.action, token),
      expiresAt: link.expiresAt,
    });
  }
  return out;
}

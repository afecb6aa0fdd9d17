// The vendor's side of a held bank detail change, as mails to queue (workers/vendors/banking-mail.ts
// queues them): the notice to the contact on record before the change, with its "this was not me"
// link; the alert to every ADMIN once that link was pressed; and the micro-deposit link. Each mail's
// key, and the notice's link id, derive from the job, so a job run again issues the same link and
// queues the same mails, which the mail queue sends once. Mails hold tails of the numbers only.

import { userSubject } from '../../schema/users/events.js';
import { type VendorEvent, vendorEvents, vendorSubject } from '../../schema/vendors/events.js';
import { type CommandContext, eventIdFor } from '../app/command-handler.js';
import type { AppServices } from '../app/context.js';
import { appUrlOf } from '../mail/send.js';
import type { MailTemplateData, MailTemplateName } from '../mail/templates.js';
import { eventDecoder } from '../shared/decider.js';
import { initialState, type VendorState, vendorDecider } from './vendor-decider.js';
import { signVendorLinkToken, VENDOR_LINK_TTL_DAYS, type VendorLinkPurpose } from './vendor-link-token.js';

const decode = eventDecoder(vendorEvents);

export interface VendorMail<T extends MailTemplateName = MailTemplateName> {
  key: string;
  template: T;
  to: { subject: string; address: string; name: string | null };
  data: MailTemplateData<T>;
}

type Requested = Extract<VendorEvent, { type: 'VendorBankingChangeRequested' }>['data'];
type Sent = Extract<VendorEvent, { type: 'VendorMicroDepositsSent' }>['data'];

/** A change as its vendor's stream tells it: the contact on record when it was made, and the rest. */
export interface ChangeStory {
  vendorId: number;
  companyId: number;
  /** The vendor's name and e-mail (QuickBooks) when the change was made: whom the vendor's mails go to. */
  vendorName: string;
  contactEmail: string | null;
  request: Requested;
  /** Its micro-deposit verifications, in order. */
  verifications: Sent[];
  /**
   * How it ended: live (approved by a second person, or confirmed by the micro-deposits of
   * `confirmedBy`), rejected, replaced by a newer change; null while it is held.
   */
  ended: { how: 'live' | 'rejected' | 'replaced'; confirmedBy: string | null } | null;
  /** The vendor now. */
  state: VendorState;
}

/** The change `changeId` of the vendor's stream, or null (no such change, or the vendor forgotten). */
export async function changeStory(
  app: AppServices,
  streamId: string,
  changeId: string,
): Promise<ChangeStory | null> {
  const { events } = await app.commands.load(vendorDecider, streamId);
  let state = initialState();
  let at: { name: string | null; email: string | null; request: Requested } | null = null;
  const verifications: Sent[] = [];
  let ended: ChangeStory['ended'] = null;
  let confirmedBy: string | null = null;
  for (const stored of events) {
    const e = decode(stored) as VendorEvent;
    state = vendorDecider.evolve(state, e);
    if (e.type === 'VendorBankingChangeRequested' && e.data.changeId === changeId)
      at = { name: state.qb?.name ?? null, email: state.qb?.email ?? null, request: e.data };
    if (e.type === 'VendorBankingChangeRequested' && e.data.replaces === changeId)
      ended ??= { how: 'replaced', confirmedBy: null };
    if (e.type === 'VendorMicroDepositsSent' && e.data.changeId === changeId) verifications.push(e.data);
    if (e.type === 'VendorMicroDepositsConfirmed' && e.data.changeId === changeId)
      confirmedBy = e.data.verificationId;
    if (e.type === 'VendorBankingUpdated' && e.data.changeId === changeId)
      ended ??= { how: 'live', confirmedBy };
    if (e.type === 'VendorBankingChangeRejected' && e.data.changeId === changeId)
      ended ??= { how: 'rejected', confirmedBy: null };
  }
  if (!at || state.forgotten || state.vendorId === null || state.companyId === null) return null;
  return {
    vendorId: state.vendorId,
    companyId: state.companyId,
    vendorName: at.name ?? `Vendor ${state.vendorId}`,
    contactEmail: at.email?.trim() || null,
    request: at.request,
    verifications,
    ended,
    state,
  };
}

export async function companyNameOf(app: AppServices, companyId: number): Promise<string> {
  const c = await app.db
    .selectFrom('companies')
    .select('name')
    .where('id', '=', companyId)
    .executeTakeFirst();
  return c?.name ?? `Company ${companyId}`;
}

export const NOC_MAKER = 'a bank’s notification of change';

/** Who made a change, in words: the user's name, or the bank's notification of change. */
export async function makerOf(app: AppServices, byUserId: number | null): Promise<string> {
  if (byUserId === null) return NOC_MAKER;
  const u = await app.db
    .selectFrom('users')
    .select(['first_name', 'last_name'])
    .where('id', '=', byUserId)
    .executeTakeFirst();
  return [u?.first_name, u?.last_name].filter((s) => s?.trim()).join(' ') || `Billflow user #${byUserId}`;
}

const tailsOf = (t: { routingLast4: string | null; accountLast4: string | null }) => ({
  routing: t.routingLast4,
  account: t.accountLast4,
});

/** BullMQ ids and mail keys keep to [A-Za-z0-9_-]. */
const mailKey = (jobId: string, part: string | number) => `${jobId}_${part}`.replace(/[^A-Za-z0-9_-]/g, '_');

/** The public page a vendor link opens (the web app's; a GET there changes nothing). */
export function vendorLinkUrl(app: AppServices, purpose: VendorLinkPurpose, token: string): string {
  const u = new URL(`/vendor-banking/${purpose}`, appUrlOf(app.config));
  u.searchParams.set('token', token);
  return u.toString();
}

/**
 * VendorBankingChangeRequested: the notice to the e-mail on record before the change, with a "this
 * was not me" link (its id from the job; valid VENDOR_LINK_TTL_DAYS from the change), recorded on the
 * vendor's stream first. No e-mail on record: recorded as nobody told, and no mail.
 */
export async function changeNoticeMails(
  app: AppServices,
  input: { streamId: string; changeId: string; jobId: string },
  ctx: CommandContext,
): Promise<VendorMail[]> {
  const story = await changeStory(app, input.streamId, input.changeId);
  if (!story) return [];
  const { request, vendorId } = story;
  const linkId = eventIdFor(`vendor-notice:${input.jobId}`, 0);
  const expiresAt = new Date(Date.parse(request.at) + VENDOR_LINK_TTL_DAYS * 86_400_000).toISOString();
  const outcome = story.contactEmail ? ('sent' as const) : ('no-contact' as const);
  await app.commands.handle(
    vendorDecider,
    input.streamId,
    {
      type: 'RecordBankingNotice',
      changeId: input.changeId,
      outcome,
      linkId,
      expiresAt,
      now: new Date().toISOString(),
    },
    { ...ctx, commandId: `${input.jobId}_notice` },
  );
  if (!story.contactEmail) return [];
  const token = await signVendorLinkToken(app.config.JWT_SECRET, {
    purpose: 'not-me',
    vendorId,
    changeId: input.changeId,
    linkId,
    expiresAt,
  });
  const mail: VendorMail<'vendor-banking-change-notice'> = {
    key: mailKey(input.jobId, 0),
    template: 'vendor-banking-change-notice',
    to: { subject: vendorSubject(vendorId), address: story.contactEmail, name: story.vendorName },
    data: {
      companyName: await companyNameOf(app, story.companyId),
      vendorName: story.vendorName,
      previous: request.previous ? tailsOf(request.previous) : null,
      next: tailsOf(request),
      accountType: request.accountType,
      madeBy: await makerOf(app, request.byUserId),
      madeAt: request.at,
      actionUrl: vendorLinkUrl(app, 'not-me', token),
      linkExpiresAt: expiresAt,
    },
  };
  return [mail];
}

/** VendorBankingChangeFrozen: every active ADMIN hears of it (ADMIN is every company's). */
export async function frozenAlertMails(
  app: AppServices,
  input: { streamId: string; changeId: string; frozenAt: string; jobId: string },
): Promise<VendorMail[]> {
  const story = await changeStory(app, input.streamId, input.changeId);
  if (!story) return [];
  const admins = await app.db
    .selectFrom('users')
    .select(['id', 'email', 'first_name', 'last_name'])
    .where('role', '=', 'ADMIN')
    .where('is_active', '=', true)
    .where('deleted_at', 'is', null)
    .where('email', 'is not', null)
    .orderBy('id')
    .execute();
  const data: MailTemplateData<'vendor-banking-change-frozen'> = {
    companyName: await companyNameOf(app, story.companyId),
    vendorName: story.vendorName,
    vendorId: story.vendorId,
    previous: story.request.previous ? tailsOf(story.request.previous) : null,
    next: tailsOf(story.request),
    madeBy: await makerOf(app, story.request.byUserId),
    madeAt: story.request.at,
    frozenAt: input.frozenAt,
  };
  return admins.map(
    (u): VendorMail<'vendor-banking-change-frozen'> => ({
      key: mailKey(input.jobId, u.id),
      template: 'vendor-banking-change-frozen',
      to: {
        subject: userSubject(u.id),
        address: u.email!,
        name: [u.first_name, u.last_name].filter((s) => s?.trim()).join(' ') || null,
      },
      data,
    }),
  );
}

/** VendorMicroDepositsSent: the link to enter the amounts, to the contact on record before the change. */
export async function microDepositLinkMails(
  app: AppServices,
  input: { streamId: string; changeId: string; verificationId: string; jobId: string },
): Promise<VendorMail[]> {
  const story = await changeStory(app, input.streamId, input.changeId);
  const sent = story?.verifications.find((v) => v.verificationId === input.verificationId);
  if (!story || !sent || !story.contactEmail) return [];
  const token = await signVendorLinkToken(app.config.JWT_SECRET, {
    purpose: 'micro-deposits',
    vendorId: story.vendorId,
    changeId: input.changeId,
    linkId: input.verificationId,
    expiresAt: sent.expiresAt,
  });
  const mail: VendorMail<'vendor-micro-deposits'> = {
    key: mailKey(input.jobId, 0),
    template: 'vendor-micro-deposits',
    to: { subject: vendorSubject(story.vendorId), address: story.contactEmail, name: story.vendorName },
    data: {
      companyName: await companyNameOf(app, story.companyId),
      vendorName: story.vendorName,
      next: tailsOf(story.request),
      effectiveDate: sent.effectiveDate,
      tries: sent.tries,
      actionUrl: vendorLinkUrl(app, 'micro-deposits', token),
      linkExpiresAt: sent.expiresAt,
    },
  };
  return [mail];
}

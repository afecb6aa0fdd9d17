// The links mailed to a vendor's contact on record, used without signing in: "this was not me" on
// the notice of a change (freezes it; the ADMINs are alerted by the reaction to the freeze) and the
// micro-deposit entry (the right amounts make the change live). A read (GET) shows the change and
// changes nothing; only a press (POST) acts. Each call is counted against its address, each press
// against its link too (link-rate-limit.ts). The token's signature, purpose and expiry are checked
// here (vendor-link-token.ts); whether the link still acts is the vendor decider's to say.
import type { MicroDepositLinkView, NotMeResult, VendorLinkChange } from '../../schema/vendors/answers.js';
import { MicroDepositEntryInput } from '../../schema/vendors/commands.js';
import { type AppServices, awaitProjections } from '../app/context.js';
import { DomainError } from '../shared/domain-errors.js';
import { AppError, parseInput } from '../shared/errors.js';
import { maskTail } from '../shared/masking.js';
import type { RequestContext } from '../shared/request-context.js';
import { BANKING_READ_MODELS } from './banking-changes.js';
import { type ChangeStory, changeStory, companyNameOf, makerOf } from './banking-notices.js';
import { countLinkCall } from './link-rate-limit.js';
import { vendorDecider, vendorStreamId } from './vendor-decider.js';
import {
  type VendorLinkClaims,
  VendorLinkError,
  type VendorLinkPurpose,
  verifyVendorLinkToken,
} from './vendor-link-token.js';
import { anyVendorRows } from './vendor-rows.js';

export interface LinkCall {
  token: unknown;
  /** The client's address (its calls are counted). */
  ip: string | null;
  request?: RequestContext;
}

const INVALID = 'This link is not valid';

interface OpenedLink {
  claims: VendorLinkClaims;
  streamId: string;
  story: ChangeStory;
}

async function openLink(app: AppServices, call: LinkCall, purpose: VendorLinkPurpose): Promise<OpenedLink> {
  let claims: VendorLinkClaims;
  try {
    claims = await verifyVendorLinkToken(app.config.JWT_SECRET, call.token, purpose);
  } catch (err) {
    if (err instanceof VendorLinkError) throw new AppError('FORBIDDEN', err.message);
    throw err;
  }
  const row = await anyVendorRows(app).where('v.id', '=', claims.vendorId).executeTakeFirst();
  if (!row) throw new AppError('FORBIDDEN', INVALID);
  if (row.company_deleted_at !== null)
    throw new AppError('CONFLICT', 'This vendor’s company is no longer served here: contact the company');
  const streamId = vendorStreamId(row.company_id, row.qb_vendor_id);
  const story = await changeStory(app, streamId, claims.changeId);
  if (!story) throw new AppError('FORBIDDEN', INVALID);
  return { claims, streamId, story };
}

/** The change's status as its stream tells it (no read model: a link is read right after a mail). */
function statusOf(story: ChangeStory): VendorLinkChange['status'] {
  const pending = story.state.pending;
  if (pending?.changeId === story.request.changeId) return pending.frozen ? 'frozen' : 'pending';
  if (story.ended?.how === 'live') return 'approved';
  return 'rejected';
}

function endedNote(story: ChangeStory, company: string): string {
  const how =
    story.ended?.how === 'live'
      ? 'it was confirmed and is in use'
      : story.ended?.how === 'replaced'
        ? 'a newer change replaced it'
        : 'it was rejected';
  return `This change is no longer held: ${how}. If you did not ask for it, contact ${company} at once.`;
}

async function changeView(
  app: AppServices,
  opened: OpenedLink,
): Promise<Omit<VendorLinkChange, 'canAct' | 'note'>> {
  const { story, claims } = opened;
  const r = story.request;
  return {
    companyName: await companyNameOf(app, story.companyId),
    vendorName: story.vendorName,
    accountType: r.accountType,
    previousRoutingNumber: r.previous ? maskTail(r.previous.routingLast4, 9) : null,
    previousAccountNumber: r.previous ? maskTail(r.previous.accountLast4, 8) : null,
    routingNumber: maskTail(r.routingLast4, 9),
    accountNumber: maskTail(r.accountLast4, 8),
    madeBy: await makerOf(app, r.byUserId),
    madeAt: r.at,
    status: statusOf(story),
    expiresAt: claims.expiresAt,
  };
}

const ALREADY_FROZEN =
  'Already reported: the change is stopped and the company’s administrators were alerted. Nothing more to do.';

/** Whether a "this was not me" press would act now, and if not why (throws for a link not this change's). */
function notMeStanding(opened: OpenedLink, company: string): { canAct: boolean; note: string | null } {
  const { story, claims } = opened;
  const pending = story.state.pending;
  if (pending?.changeId !== claims.changeId) return { canAct: false, note: endedNote(story, company) };
  if (pending.frozen) return { canAct: false, note: ALREADY_FROZEN };
  try {
    vendorDecider.decide(
      {
        type: 'FreezeBankingChange',
        changeId: claims.changeId,
        now: new Date().toISOString(),
        link: { linkId: claims.linkId },
      },
      story.state,
    );
  } catch (err) {
    if (err instanceof DomainError) throw new AppError('FORBIDDEN', err.message);
    throw err;
  }
  return { canAct: true, note: null };
}

/** GET /api/vendors/banking-links/not-me?token: the change the notice was about; changes nothing. */
export async function notMeLink(app: AppServices, call: LinkCall): Promise<VendorLinkChange> {
  await countLinkCall(app, { ip: call.ip, token: call.token, press: false });
  const opened = await openLink(app, call, 'not-me');
  const view = await changeView(app, opened);
  return { ...view, ...notMeStanding(opened, view.companyName) };
}

/** POST /api/vendors/banking-links/not-me?token: freezes the change (once); the ADMINs are alerted. */
export async function pressNotMe(app: AppServices, call: LinkCall): Promise<NotMeResult> {
  await countLinkCall(app, { ip: call.ip, token: call.token, press: true });
  const opened = await openLink(app, call, 'not-me');
  const company = await companyNameOf(app, opened.story.companyId);
  const standing = notMeStanding(opened, company);
  if (!standing.canAct) {
    if (opened.story.state.pending?.frozen)
      return { status: 'frozen', noAction: true, message: ALREADY_FROZEN };
    throw new AppError('CONFLICT', standing.note ?? INVALID);
  }
  const { claims } = opened;
  const r = await app.commands.handle(
    vendorDecider,
    opened.streamId,
    {
      type: 'FreezeBankingChange',
      changeId: claims.changeId,
      now: new Date().toISOString(),
      link: { linkId: claims.linkId },
    },
    { userId: null, request: call.request },
  );
  await awaitProjections(app, r.position, [...BANKING_READ_MODELS]);
  return {
    status: 'frozen',
    noAction: r.events.length === 0,
    message:
      r.events.length === 0
        ? ALREADY_FROZEN
        : `Thank you. The change is stopped: no payment goes to the new account, and ${company}’s administrators were alerted.`,
  };
}

/** Where the link's verification stands. */
function verificationStanding(opened: OpenedLink, company: string) {
  const { story, claims } = opened;
  const sent = story.verifications.find((v) => v.verificationId === claims.linkId);
  if (!sent) throw new AppError('FORBIDDEN', INVALID);
  const pending = story.state.pending;
  const latest = pending?.verification;
  const base = { effectiveDate: sent.effectiveDate, triesLeft: 0 };
  if (story.ended?.confirmedBy === claims.linkId)
    return {
      ...base,
      verification: 'confirmed' as const,
      canAct: false,
      note: 'Already confirmed: nothing more to do.',
    };
  if (pending?.changeId !== claims.changeId)
    return { ...base, verification: 'closed' as const, canAct: false, note: endedNote(story, company) };
  if (pending.frozen)
    return {
      ...base,
      verification: 'closed' as const,
      canAct: false,
      note: 'This change was reported as not yours: it is stopped.',
    };
  if (latest?.verificationId !== claims.linkId)
    return {
      ...base,
      verification: 'replaced' as const,
      canAct: false,
      note: 'A newer check of this account was started: use the link in the latest e-mail.',
    };
  if (latest.triesLeft <= 0)
    return {
      ...base,
      verification: 'locked' as const,
      canAct: false,
      note: `This check is locked after too many wrong amounts. Contact ${company}.`,
    };
  return { ...base, triesLeft: latest.triesLeft, verification: 'open' as const, canAct: true, note: null };
}

/** GET /api/vendors/banking-links/micro-deposits?token: the account to confirm and the tries left. */
export async function microDepositLink(app: AppServices, call: LinkCall): Promise<MicroDepositLinkView> {
  await countLinkCall(app, { ip: call.ip, token: call.token, press: false });
  const opened = await openLink(app, call, 'micro-deposits');
  const view = await changeView(app, opened);
  return { ...view, ...verificationStanding(opened, view.companyName) };
}

/**
 * POST /api/vendors/banking-links/micro-deposits?token with { amounts: ['0.12', '0.87'] }: the right
 * amounts (either order) make the change live; wrong ones take a try, and the last locks the check.
 * Malformed amounts are refused (400) and take no try.
 */
export async function enterMicroDeposits(app: AppServices, call: LinkCall, body: unknown) {
  await countLinkCall(app, { ip: call.ip, token: call.token, press: true });
  const { amounts } = parseInput(MicroDepositEntryInput, body);
  const opened = await openLink(app, call, 'micro-deposits');
  const company = await companyNameOf(app, opened.story.companyId);
  const standing = verificationStanding(opened, company);
  if (!standing.canAct) throw new AppError('CONFLICT', standing.note ?? INVALID);
  const { claims } = opened;
  const r = await app.commands.handle(
    vendorDecider,
    opened.streamId,
    {
      type: 'ConfirmMicroDeposits',
      changeId: claims.changeId,
      verificationId: claims.linkId,
      amountsCents: amounts,
      now: new Date().toISOString(),
    },
    { userId: null, request: call.request },
  );
  await awaitProjections(app, r.position, [...BANKING_READ_MODELS]);
  const miss = r.events.find((e) => e.type === 'VendorMicroDepositsMismatched');
  if (!miss)
    return {
      outcome: 'confirmed' as const,
      triesLeft: standing.triesLeft,
      message: `Thank you: the new bank account is confirmed with ${company}.`,
    };
  const left = (miss.data as { triesLeft: number }).triesLeft;
  if (left === 0)
    return {
      outcome: 'locked' as const,
      triesLeft: 0,
      message: `Those amounts do not match, and no tries are left: the check is locked. Contact ${company}.`,
    };
  return {
    outcome: 'wrong' as const,
    triesLeft: left,
    message: `Those amounts do not match. ${left} ${left === 1 ? 'try' : 'tries'} left.`,
  };
}

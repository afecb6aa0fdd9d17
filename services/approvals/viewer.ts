// What one viewer may do with an approval (viewerMayApprove, approveBlockedReason): computed per
// request from the shared answer, never kept in it.
import type { z } from 'zod';
import type { Approval, ViewerApproval as ViewerApprovalAnswer } from '../../schema/approvals/answers.js';
import { type Actor, can } from '../auth/permissions.js';
import type { Page } from '../shared/paging.js';
import { segregationBlock } from './policy-decider.js';
import type { ApprovalDto } from './rows.js';

export type ViewerApproval = z.infer<typeof ViewerApprovalAnswer>;
/** An approval with the viewer's own fields: what REST and GraphQL answer. */
export type ApprovalView = z.infer<typeof Approval>;

/**
 * Whether this viewer may approve now and why not: the decider's rule (segregationBlock) on the
 * read model's policy, so the screen disables what the server would refuse. The server still judges
 * on the policy's own stream when the approval is sent.
 */
export function viewerApproval(a: ApprovalDto, actor: Actor | null): ViewerApproval {
  if (!actor || !can(actor, 'approvals.write'))
    return { viewerMayApprove: false, approveBlockedReason: 'Only administrators and moderators approve.' };
  if (a.status !== 'PENDING')
    return {
      viewerMayApprove: false,
      approveBlockedReason: `Only a pending approval can be approved; this one is ${a.status.toLowerCase().replace(/_/g, ' ')}.`,
    };
  const block = segregationBlock(
    { createdBy: a.createdBy, firstApprovedBy: a.awaitingSecondApproval ? a.firstApprovedBy : null },
    { creatorMayNotApprove: a.creatorMayNotApprove, secondApprovalThreshold: a.secondApprovalThreshold },
    actor.id,
  );
  if (block === 'CREATOR')
    return {
      viewerMayApprove: false,
      approveBlockedReason: 'You created this approval; this company requires a different approver.',
    };
  if (block === 'FIRST_APPROVER')
    return {
      viewerMayApprove: false,
      approveBlockedReason: 'You gave the first approval; a second, different approver must approve.',
    };
  return { viewerMayApprove: true, approveBlockedReason: null };
}

/** An answer with the viewer's fields (a new object: list answers are shared between requests). */
export function withViewer(a: ApprovalDto, actor: Actor | null): ApprovalView {
  // Object.assign, not {...a, ...b}: spreading two objects into one with this many fields left V8 a
  // slow dictionary object (measured: over ten times the cost of a copy, and slower to serialize).
  return Object.assign({}, a, viewerApproval(a, actor));
}

/**
 * The viewer's copies of a list page, made once per kept page and viewer: the list is benchmarked at
 * 1,500 requests/s answered from memory, and copying 25 rows per request would cost more than the rest
 * of the hit. Keyed on the kept page itself, so a new version of the page starts afresh.
 */
const viewerPages = new WeakMap<Page<ApprovalDto>, Map<string, Page<ApprovalView>>>();
const VIEWERS_PER_PAGE = 64;

export function pageForViewer(page: Page<ApprovalDto>, actor: Actor | null): Page<ApprovalView> {
  // What the rule reads of the viewer: who they are and their role.
  const who = actor ? `${actor.id}:${actor.role}` : '';
  let byViewer = viewerPages.get(page);
  if (!byViewer) {
    byViewer = new Map();
    viewerPages.set(page, byViewer);
  }
  let viewed = byViewer.get(who);
  if (!viewed) {
    if (byViewer.size >= VIEWERS_PER_PAGE) byViewer.clear();
    viewed = { ...page, data: page.data.map((a) => withViewer(a, actor)) };
    byViewer.set(who, viewed);
  }
  return viewed;
}

// Live changes of approvals and of a company's approval policy: approvalChanged, approvalPolicyChanged.
import type { ChangeNotice } from '../../../../projections/projection.js';
import type { AppServices } from '../../../app/context.js';
import { type Actor, authorize } from '../../../auth/permissions.js';
import { builder } from '../../../gateway/graphql/builder.js';
import { inStaffScope, type LiveBus, seedSharedRead, sharedRead } from '../../../gateway/live.js';
import { approvalSummaries, getApprovalSummary } from '../../list.js';
import type { ApprovalDto } from '../../rows.js';
import { ApprovalRef, StatusEnum } from './approval.js';

/** What a push resolves from: the notice's own fields, and the row behind it only when asked for. */
interface ApprovalChangeSource {
  id: string;
  type: string;
  /** The status the change left, carried by the notice of a status change (null: read the row). */
  noticedStatus: string | null;
  companyId: number | null;
  approval(): Promise<ApprovalDto | null>;
}

const ApprovalChange = builder.objectRef<ApprovalChangeSource>('ApprovalChange').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    type: t.exposeString('type', { description: 'The event: ApprovalCreated, ApprovalApproved, …' }),
    status: t.field({
      type: StatusEnum,
      nullable: true,
      // A status change's notice says which status it left: the screens' subscription (id, type,
      // status) is pushed without a read. Other changes read the row.
      resolve: async (c) => (c.noticedStatus ?? (await c.approval())?.status ?? null) as never,
    }),
    companyId: t.exposeInt('companyId', { nullable: true }),
    approval: t.field({
      type: ApprovalRef,
      nullable: true,
      description: 'The list row after the change (no bills); null once deleted.',
      resolve: (c) => c.approval(),
    }),
  }),
});

/**
 * The rows behind a message's approval notices, in one query the first time a subscriber asks for
 * one (a bulk action's 100 changes are one read, not 100 per subscriber). Nothing is read for a
 * message whose pushes need no row: the screens subscribe to id, type and status, which a status
 * change's notice carries.
 */
export function batchApprovalReads(live: LiveBus, app: AppServices) {
  live.onNotices((notices) => {
    const changed = notices.filter((n) => n.topic === 'approval');
    if (changed.length === 0) return;
    let rows: Promise<Map<string, ApprovalDto>> | null = null;
    const read = () => {
      rows ??= approvalSummaries(app, [...new Set(changed.map((n) => n.id))]);
      return rows;
    };
    for (const n of changed)
      seedSharedRead(n, 'approval', () =>
        read().then(
          (byId) => byId.get(n.id) ?? null,
          () => null,
        ),
      );
  });
}

/** The row behind a notice, read once for every subscriber in this process; null once deleted. */
export function changedApproval(notice: ChangeNotice, app: AppServices, actor: Actor | null) {
  return sharedRead(notice, 'approval', () => getApprovalSummary(app, actor, notice.id).catch(() => null));
}

async function* onlyCompany(source: AsyncIterable<ChangeNotice>, companyId: number) {
  for await (const n of source) if (Number(n.data?.companyId) === companyId) yield n;
}

builder.subscriptionField('approvalChanged', (t) =>
  t.field({
    type: ApprovalChange,
    description:
      'Pushed after the approvals read model changed (created, approved, rejected, expired, updated, deleted). Optionally one approval or one company.',
    authScopes: { permission: 'approvals.read' },
    args: { id: t.arg.string({ required: false }), companyId: t.arg.int({ required: false }) },
    subscribe: (_, args, ctx) => {
      const source = inStaffScope(
        ctx.live.subscribe('approval', args.id == null ? undefined : args.id),
        ctx.app,
        ctx.actor,
      );
      return args.companyId == null ? source : onlyCompany(source, args.companyId);
    },
    resolve: (notice, _, ctx): ApprovalChangeSource => {
      authorize(ctx.actor, 'approvals.read');
      const d = notice.data ?? {};
      return {
        id: notice.id,
        type: String(d.type ?? 'changed'),
        noticedStatus: typeof d.status === 'string' ? d.status : null,
        companyId: typeof d.companyId === 'number' ? d.companyId : null,
        approval: () => changedApproval(notice, ctx.app, ctx.actor),
      };
    },
  }),
);

const ApprovalPolicyChange = builder.objectRef<{ companyId: number }>('ApprovalPolicyChange').implement({
  fields: (t) => ({ companyId: t.exposeInt('companyId') }),
});

builder.subscriptionField('approvalPolicyChanged', (t) =>
  t.field({
    type: ApprovalPolicyChange,
    description:
      'Pushed after a company’s segregation-of-duties policy changed: who may approve its approvals may have changed. Optionally one company.',
    authScopes: { permission: 'approvals.read' },
    args: { companyId: t.arg.int({ required: false }) },
    subscribe: (_, args, ctx) =>
      ctx.live.subscribe('approval-policy', args.companyId == null ? undefined : String(args.companyId)),
    resolve: (notice, _, ctx) => {
      authorize(ctx.actor, 'approvals.read');
      return { companyId: Number(notice.id) };
    },
  }),
);

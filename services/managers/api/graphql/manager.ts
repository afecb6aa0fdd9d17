// The Manager type, its queries and live changes (the mutations are declared in
// services/managers/endpoints.ts).
// The types' fields come from the answers (schema/managers/answers.ts).
import {
  Manager,
  ManagerPage as ManagerPageAnswer,
  ManagerUser,
} from '../../../../schema/managers/answers.js';
import { withoutNulls } from '../../../app/endpoints.js';
import { authorize } from '../../../auth/permissions.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';
import { run } from '../../../gateway/graphql/errors.js';
import { sharedRead } from '../../../gateway/live.js';
import type { Page } from '../../../shared/paging.js';
import { getManager, listManagers, type ManagerDto, searchManagers } from '../../managers.js';

const ManagerStatusEnum = builder.enumType('ManagerStatus', {
  values: ['ACTIVE', 'INACTIVE', 'SUSPENDED'] as const,
});

const LinkedUserRef = builder.objectRef<NonNullable<ManagerDto['user']>>('ManagerUser').implement({
  description: 'The user account a manager is linked to.',
  fields: (t) =>
    answerFields(t, ManagerUser, {
      refs: { role: 'Role' } /* the users module's enum, by its GraphQL name */,
    }),
});

export const ManagerRef = builder.objectRef<ManagerDto>('Manager').implement({
  fields: (t) =>
    answerFields(t, Manager, {
      refs: { status: ManagerStatusEnum, user: LinkedUserRef },
      scalars: { createdAt: 'DateTime', updatedAt: 'DateTime' },
    }),
});

const ManagerPage = builder.objectRef<Page<ManagerDto>>('ManagerPage').implement({
  fields: (t) => answerFields(t, ManagerPageAnswer, { refs: { data: ManagerRef } }),
});

builder.queryField('managers', (t) =>
  t.field({
    type: ManagerPage,
    description: 'Managers, newest first (ADMIN).',
    args: { page: t.arg.int({ required: false }), limit: t.arg.int({ required: false }) },
    resolve: (_, args, ctx) => run(() => listManagers(ctx.app, ctx.actor, withoutNulls(args))),
  }),
);

builder.queryField('manager', (t) =>
  t.field({
    type: ManagerRef,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_, args, ctx) => run(() => getManager(ctx.app, ctx.actor, args.id)),
  }),
);

builder.queryField('searchManagers', (t) =>
  t.field({
    type: [ManagerRef],
    description: 'Managers whose name or e-mail contains q (at most 20).',
    args: { q: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) => run(() => searchManagers(ctx.app, ctx.actor, args)),
  }),
);

const ManagerChange = builder
  .objectRef<{ id: number; type: string; manager: ManagerDto | null }>('ManagerChange')
  .implement({
    fields: (t) => ({
      id: t.exposeInt('id'),
      type: t.exposeString('type', {
        description: 'The event that changed the manager, e.g. ManagerUpdated.',
      }),
      manager: t.field({
        type: ManagerRef,
        nullable: true,
        description: 'The manager as the read model holds it now; null once deleted.',
        resolve: (c) => c.manager,
      }),
    }),
  });

builder.subscriptionField('managerChanged', (t) =>
  t.field({
    type: ManagerChange,
    description: 'Pushed after the managers read model changed. Optionally one manager only.',
    authScopes: { permission: 'managers.read' },
    args: { id: t.arg.int({ required: false }) },
    subscribe: (_, args, ctx) => ctx.live.subscribe('manager', args.id == null ? undefined : String(args.id)),
    resolve: async (notice, _, ctx) => {
      // Checked again on every push: a caller demoted since subscribing gets nothing more.
      authorize(ctx.actor, 'managers.read');
      const manager = await sharedRead(notice, 'manager', () =>
        getManager(ctx.app, ctx.actor, Number(notice.id)).catch(() => null),
      );
      return { id: Number(notice.id), type: String(notice.data?.type ?? 'changed'), manager };
    },
  }),
);

// The User type, its queries, and the live user-change subscription (the mutations are declared in
// services/users/endpoints.ts). The types' fields come from the
// answers (schema/users/answers.ts).
import {
  OverviewStats,
  User,
  UserPage as UserPageAnswer,
  UserStatistics,
  UsersByRole,
} from '../../../../schema/users/answers.js';
import type { AppServices } from '../../../app/context.js';
import { withoutNulls } from '../../../app/endpoints.js';
import { authorize } from '../../../auth/permissions.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';
import { run } from '../../../gateway/graphql/errors.js';
import { type LiveBus, seedSharedRead, sharedRead } from '../../../gateway/live.js';
import type { Page } from '../../../shared/paging.js';
import { me } from '../../auth.js';
import { findUserRow, findUserRows, freshUserKey, toUserDto, type UserDto } from '../../user-view.js';
import { getProfile, getUser, listUsers, overviewStats, userStatistics } from '../../users.js';

export const RoleEnum = builder.enumType('Role', {
  values: ['ADMIN', 'MODERATOR', 'USER', 'GUEST'] as const,
});

export const UserRef = builder.objectRef<UserDto>('User').implement({
  fields: (t) =>
    answerFields(t, User, {
      refs: { role: RoleEnum },
      scalars: { createdAt: 'DateTime', updatedAt: 'DateTime' },
    }),
});

builder.queryField('me', (t) =>
  t.field({
    type: UserRef,
    description: 'The signed-in user.',
    resolve: (_, __, ctx) => run(() => me(ctx.app, ctx.actor)),
  }),
);

const UserChange = builder
  .objectRef<{ id: number; type: string; user: UserDto | null }>('UserChange')
  .implement({
    fields: (t) => ({
      id: t.exposeInt('id'),
      type: t.exposeString('type', { description: 'The event that changed the user, e.g. UserRoleChanged.' }),
      user: t.field({
        type: UserRef,
        nullable: true,
        description: 'The user as the read model holds it now; null once deleted.',
        resolve: (c) => c.user,
      }),
    }),
  });

/**
 * The rows behind a message's user notices, in one query as soon as it arrives: under load a
 * subscriber's pushes then await reads already done instead of one query each, in turn. The same
 * reads are offered to the mutation waiting for that batch (userAnswer), which need not read again.
 */
export function prefetchUserChanges(live: LiveBus, app: AppServices) {
  live.onNotices((notices) => {
    const users = notices.filter((n) => n.topic === 'user');
    if (users.length === 0) return;
    const rows = findUserRows(app, [...new Set(users.map((n) => Number(n.id)))]);
    for (const n of users) {
      const row = rows.then(
        (byId) => byId.get(Number(n.id)),
        () => findUserRow(app, Number(n.id)),
      );
      seedSharedRead(n, 'user', row);
      if (n.at) app.freshReads.offer(freshUserKey(Number(n.id)), n.at, row);
    }
  });
}

builder.subscriptionField('userChanged', (t) =>
  t.field({
    type: UserChange,
    description:
      'Pushed after the users read model changed (any gateway, through Redis). Optionally one user only.',
    authScopes: { permission: 'users.read' },
    args: { id: t.arg.int({ required: false }) },
    subscribe: (_, args, ctx) => ctx.live.subscribe('user', args.id == null ? undefined : String(args.id)),
    resolve: async (notice, _, ctx) => {
      authorize(ctx.actor, 'users.read');
      const row = await sharedRead(notice, 'user', () => findUserRow(ctx.app, Number(notice.id)));
      return {
        id: Number(notice.id),
        type: String(notice.data?.type ?? 'changed'),
        user: row ? toUserDto(row) : null,
      };
    },
  }),
);

const UserPage = builder.objectRef<Page<UserDto>>('UserPage').implement({
  fields: (t) => answerFields(t, UserPageAnswer, { refs: { data: UserRef } }),
});

builder.queryField('users', (t) =>
  t.field({
    type: UserPage,
    args: { page: t.arg.int({ required: false }), limit: t.arg.int({ required: false }) },
    resolve: (_, args, ctx) => run(() => listUsers(ctx.app, ctx.actor, withoutNulls(args))),
  }),
);

builder.queryField('user', (t) =>
  t.field({
    type: UserRef,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_, args, ctx) => run(() => getUser(ctx.app, ctx.actor, args.id)),
  }),
);

builder.queryField('profile', (t) =>
  t.field({ type: UserRef, resolve: (_, __, ctx) => run(() => getProfile(ctx.app, ctx.actor)) }),
);

const StatsRef = builder.objectRef<UserStatistics>('UserStatistics').implement({
  fields: (t) => answerFields(t, UserStatistics, { scalars: { lastLogin: 'DateTime' } }),
});

builder.queryField('userStatistics', (t) =>
  t.field({
    type: StatsRef,
    description: 'Statistics of one user (ADMIN), or of the caller when no id is given.',
    args: { userId: t.arg.int({ required: false }) },
    resolve: (_, args, ctx) =>
      run(() => userStatistics(ctx.app, ctx.actor, { userId: args.userId ?? undefined })),
  }),
);

const RoleCounts = builder.objectRef<UsersByRole>('UsersByRole').implement({
  fields: (t) => answerFields(t, UsersByRole),
});

const OverviewStatsRef = builder.objectRef<OverviewStats>('UserOverviewStats').implement({
  fields: (t) => answerFields(t, OverviewStats, { refs: { usersByRole: RoleCounts } }),
});

builder.queryField('userOverviewStats', (t) =>
  t.field({
    type: OverviewStatsRef,
    resolve: (_, __, ctx) => run(() => overviewStats(ctx.app, ctx.actor)),
  }),
);

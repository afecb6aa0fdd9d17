// Sign-in and session mutations, the GraphQL twins of /api/auth/login, refresh and logout (register
// and changePassword are declared in services/users/endpoints.ts).
import { AuthAnswer, RefreshAnswer, Tokens as TokensAnswer } from '../../../../schema/users/answers.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';
import { run } from '../../../gateway/graphql/errors.js';
import { login, logout, refresh, type Tokens } from '../../auth.js';
import type { UserDto } from '../../user-view.js';
import { UserRef } from './user.js';

const TokensRef = builder.objectRef<Tokens>('Tokens').implement({
  fields: (t) => answerFields(t, TokensAnswer),
});

const AuthPayload = builder.objectRef<{ user: UserDto; tokens: Tokens }>('AuthPayload').implement({
  fields: (t) => answerFields(t, AuthAnswer, { refs: { user: UserRef, tokens: TokensRef } }),
});

const RefreshPayload = builder.objectRef<{ tokens: Tokens }>('RefreshPayload').implement({
  fields: (t) => answerFields(t, RefreshAnswer, { refs: { tokens: TokensRef } }),
});

builder.mutationField('login', (t) =>
  t.field({
    type: AuthPayload,
    args: { email: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) => run(() => login(ctx.app, args, { ip: ctx.ip })),
  }),
);

builder.mutationField('refreshTokens', (t) =>
  t.field({
    type: RefreshPayload,
    args: { refreshToken: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) => run(() => refresh(ctx.app, args)),
  }),
);

builder.mutationField('logout', (t) =>
  t.boolean({
    args: { refreshToken: t.arg.string({ required: false }) },
    resolve: (_, args, ctx) =>
      run(async () => {
        await logout(ctx.app, ctx.actor, { refreshToken: args.refreshToken ?? undefined });
        return true;
      }),
  }),
);

// Sign-in and session mutations: the GraphQL twins of /api/auth/* and PUT /api/user/password.
import { changeOwnPassword, login, logout, refresh, registerUser, type Tokens } from '../../../users/auth.js';
import type { UserDto } from '../../../users/user-view.js';
import { builder } from '../builder.js';
import { run } from '../errors.js';
import { withoutNulls } from '../inputs.js';
import { RoleEnum, UserRef } from './user.js';

const TokensRef = builder.objectRef<Tokens>('Tokens').implement({
  fields: (t) => ({
    accessToken: t.exposeString('accessToken'),
    refreshToken: t.exposeString('refreshToken'),
  }),
});

const AuthPayload = builder.objectRef<{ user: UserDto; tokens: Tokens }>('AuthPayload').implement({
  fields: (t) => ({
    user: t.field({ type: UserRef, resolve: (p) => p.user }),
    tokens: t.field({ type: TokensRef, resolve: (p) => p.tokens }),
  }),
});

const RefreshPayload = builder.objectRef<{ tokens: Tokens }>('RefreshPayload').implement({
  fields: (t) => ({ tokens: t.field({ type: TokensRef, resolve: (p) => p.tokens }) }),
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

const RegisterInput = builder.inputType('RegisterUserInput', {
  fields: (t) => ({
    email: t.string({ required: true }),
    password: t.string({ required: true }),
    firstName: t.string({ required: false }),
    lastName: t.string({ required: false }),
    role: t.field({ type: RoleEnum, required: false }),
    isActive: t.boolean({ required: false }),
  }),
});

builder.mutationField('register', (t) =>
  t.field({
    type: UserRef,
    description: 'Creates a user (ADMIN only).',
    args: { input: t.arg({ type: RegisterInput, required: true }) },
    resolve: (_, args, ctx) => run(() => registerUser(ctx.app, ctx.actor, withoutNulls(args.input))),
  }),
);

builder.mutationField('changePassword', (t) =>
  t.boolean({
    description: 'Changes the signed-in user’s own password.',
    args: {
      currentPassword: t.arg.string({ required: true }),
      newPassword: t.arg.string({ required: true }),
    },
    resolve: (_, args, ctx) =>
      run(async () => {
        await changeOwnPassword(ctx.app, ctx.actor, args);
        return true;
      }),
  }),
);

// Sign-in, refresh and sign-out, declared once (services/app/endpoints.ts). Public: no caller is
// needed, the use case is the whole check (the password and its rate limits, the refresh token).
// Sign-out answers with or without a caller: a bearer token signs out its session too.
import { z } from 'zod';
import { AuthAnswer, RefreshAnswer } from '../../schema/users/answers.js';
import { LoginInput, LogoutInput, RefreshInput } from '../../schema/users/commands.js';
import { declareCommand } from '../app/endpoints.js';
import { login, logout, refresh } from './auth.js';

const TAGS = ['auth'];

export const sessionEndpoints = [
  declareCommand({
    name: 'SignIn',
    permission: 'public',
    replayed: false,
    scope: 'the account the e-mail and password name; attempts limited per address and account',
    run: (app, _actor, input: unknown, caller) => login(app, input, { ip: caller.ip }),
    rest: {
      method: 'POST',
      path: '/api/auth/login',
      input: (r) => r.body,
      message: 'Login successful',
      doc: {
        summary: 'Sign in',
        tags: TAGS,
        auth: false,
        body: LoginInput,
        data: AuthAnswer,
        errors: [401, 429],
      },
    },
    graphql: {
      name: 'login',
      args: { email: 'String!', password: 'String!' },
      returns: 'AuthPayload!',
      input: (args) => args,
    },
  }),
  declareCommand({
    name: 'RefreshTokens',
    permission: 'public',
    replayed: false,
    scope: 'the session the refresh token belongs to (a reused token revokes its family)',
    run: (app, _actor, input: unknown) => refresh(app, input),
    rest: {
      method: 'POST',
      path: '/api/auth/refresh',
      input: (r) => r.body,
      doc: {
        summary: 'A new token pair for a refresh token',
        tags: TAGS,
        auth: false,
        body: RefreshInput,
        data: RefreshAnswer,
        errors: [401],
      },
    },
    graphql: {
      name: 'refreshTokens',
      args: { refreshToken: 'String!' },
      returns: 'RefreshPayload!',
      input: (args) => args,
    },
  }),
  declareCommand({
    name: 'SignOut',
    permission: 'public',
    scope: 'the caller’s own session, or the refresh token’s',
    run: (app, actor, input: unknown) => logout(app, actor, input).then(() => null),
    rest: {
      method: 'POST',
      path: '/api/auth/logout',
      input: (r) => r.body ?? {},
      message: 'Logged out',
      doc: {
        summary: "Sign out (revokes the refresh token's family)",
        tags: TAGS,
        auth: 'optional',
        body: LogoutInput,
        data: z.null(),
      },
    },
    graphql: {
      name: 'logout',
      args: { refreshToken: 'String' },
      returns: 'Boolean!',
      input: (args) => ({ refreshToken: args.refreshToken ?? undefined }),
      answer: () => true,
    },
  }),
];

// What signing in and a refresh answer: the user and a token pair (the mutations are declared in
// services/users/session-endpoints.ts).
import { AuthAnswer, RefreshAnswer, Tokens as TokensAnswer } from '../../../../schema/users/answers.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';
import type { Tokens } from '../../auth.js';
import type { UserDto } from '../../user-view.js';
import { UserRef } from './user.js';

const TokensRef = builder.objectRef<Tokens>('Tokens').implement({
  fields: (t) => answerFields(t, TokensAnswer),
});

builder.objectRef<{ user: UserDto; tokens: Tokens }>('AuthPayload').implement({
  fields: (t) => answerFields(t, AuthAnswer, { refs: { user: UserRef, tokens: TokensRef } }),
});

builder.objectRef<{ tokens: Tokens }>('RefreshPayload').implement({
  fields: (t) => answerFields(t, RefreshAnswer, { refs: { tokens: TokensRef } }),
});

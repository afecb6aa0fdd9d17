// A company's QuickBooks connection over GraphQL: the same calls as REST's qb-* paths. The types'
// fields come from the answers (schema/companies/answers.ts).
import {
  QbBankAccount,
  QbCredentials,
  QbTokenStatus as QbTokenStatusAnswer,
} from '../../../../schema/companies/answers.js';
import { type BankAccount, quickbooksCompanyInfo } from '../../../companies/quickbooks-company-info.js';
import {
  getQbCredentials,
  putQbCredentials,
  type QbCredentialsInfo,
} from '../../../companies/quickbooks-credentials.js';
import { deleteQbCredentials } from '../../../companies/quickbooks-disconnect.js';
import { startQbOAuth } from '../../../companies/quickbooks-oauth.js';
import { refreshQbToken } from '../../../companies/quickbooks-refresh.js';
import { type QbTokenStatus, qbTokenStatus } from '../../../companies/quickbooks-token-status.js';
import { answerFields } from '../answer-fields.js';
import { builder } from '../builder.js';
import { run } from '../errors.js';

const CredentialsRef = builder.objectRef<QbCredentialsInfo>('QbCredentials').implement({
  description: 'Whether QuickBooks app credentials are saved. The secret is never returned.',
  fields: (t) => answerFields(t, QbCredentials),
});

const TokenStatusRef = builder.objectRef<QbTokenStatus>('QbTokenStatus').implement({
  fields: (t) => ({
    ...answerFields(t, QbTokenStatusAnswer, { omit: ['expiresIn'] }),
    expiresIn: t.exposeInt('expiresIn', { description: 'Seconds until the access token expires.' }),
  }),
});

const BankAccountRef = builder.objectRef<BankAccount>('QbBankAccount').implement({
  fields: (t) => answerFields(t, QbBankAccount),
});

builder.queryField('qbCredentials', (t) =>
  t.field({
    type: CredentialsRef,
    args: { companyId: t.arg.int({ required: true }) },
    resolve: (_, args, ctx) => run(() => getQbCredentials(ctx.app, ctx.actor, args.companyId)),
  }),
);

builder.queryField('qbTokenStatus', (t) =>
  t.field({
    type: TokenStatusRef,
    description: 'Whether the company has QuickBooks tokens, and when they expire (ADMIN).',
    args: { companyId: t.arg.int({ required: true }) },
    resolve: (_, args, ctx) => run(() => qbTokenStatus(ctx.app, ctx.actor, args.companyId)),
  }),
);

builder.queryField('qbBankAccounts', (t) =>
  t.field({
    type: [BankAccountRef],
    description:
      'The company’s active QuickBooks bank accounts and their balances (ADMIN; cached 5 minutes).',
    args: { companyId: t.arg.int({ required: true }) },
    resolve: (_, args, ctx) =>
      run(
        async () => (await quickbooksCompanyInfo(ctx.app, ctx.actor, args.companyId)).QueryResponse.Account,
      ),
  }),
);

builder.mutationField('saveQbCredentials', (t) =>
  t.field({
    type: CredentialsRef,
    args: {
      companyId: t.arg.int({ required: true }),
      qbClientId: t.arg.string({ required: true }),
      qbClientSecret: t.arg.string({ required: true }),
      qbIsSandbox: t.arg.boolean({ required: false }),
    },
    resolve: (_, { companyId, ...input }, ctx) =>
      run(() =>
        putQbCredentials(ctx.app, ctx.actor, companyId, {
          ...input,
          qbIsSandbox: input.qbIsSandbox ?? undefined,
        }),
      ),
  }),
);

builder.mutationField('deleteQbCredentials', (t) =>
  t.boolean({
    args: { companyId: t.arg.int({ required: true }) },
    resolve: (_, args, ctx) =>
      run(async () => {
        await deleteQbCredentials(ctx.app, ctx.actor, args.companyId);
        return true;
      }),
  }),
);

builder.mutationField('startQbOAuth', (t) =>
  t.string({
    description: 'Saves the credentials and answers the URL to open in the popup.',
    args: {
      companyId: t.arg.int({ required: true }),
      qbClientId: t.arg.string({ required: true }),
      qbClientSecret: t.arg.string({ required: true }),
      qbCallbackUrl: t.arg.string({ required: true }),
      qbIsSandbox: t.arg.boolean({ required: false }),
    },
    resolve: (_, { companyId, ...input }, ctx) =>
      run(async () => {
        const { authUrl } = await startQbOAuth(
          ctx.app,
          ctx.actor,
          companyId,
          { ...input, qbIsSandbox: input.qbIsSandbox ?? undefined },
          { origin: ctx.origin ?? undefined },
        );
        return authUrl;
      }),
  }),
);

builder.mutationField('refreshQbToken', (t) =>
  t.field({
    type: TokenStatusRef,
    args: { companyId: t.arg.int({ required: true }) },
    resolve: (_, args, ctx) => run(() => refreshQbToken(ctx.app, ctx.actor, args.companyId)),
  }),
);

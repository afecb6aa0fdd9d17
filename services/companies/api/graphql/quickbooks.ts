// A company's QuickBooks connection over GraphQL: the same reads as REST's qb-* paths, and the types
// its commands answer (declared once in services/companies/endpoints.ts). The types' fields come
// from the answers (schema/companies/answers.ts).
import {
  QbBankAccount,
  QbCredentials,
  QbTokenStatus as QbTokenStatusAnswer,
} from '../../../../schema/companies/answers.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';
import { run } from '../../../gateway/graphql/errors.js';
import { type BankAccount, quickbooksCompanyInfo } from '../../quickbooks-company-info.js';
import { getQbCredentials, type QbCredentialsInfo } from '../../quickbooks-credentials.js';
import { type QbTokenStatus, qbTokenStatus } from '../../quickbooks-token-status.js';

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

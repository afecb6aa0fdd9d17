// A company's bank connection over GraphQL: the type the company's `bankConnection` field answers
// (the secret never: only whether one is set) and the answer of a check. Their fields come from the
// answers (schema/companies/answers.ts); the commands are declared in services/companies/endpoints.ts.
import {
  type BankConnection,
  BankConnection as BankConnectionAnswer,
  BankConnectionLastCheck,
  type BankConnectionTest,
  BankConnectionTest as BankConnectionTestAnswer,
} from '../../../../schema/companies/answers.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';

const BankConnectionModeEnum = builder.enumType('BankConnectionMode', {
  description:
    'manual: download the file and confirm by e-mail link; sftp: the product sends it to the bank.',
  values: ['manual', 'sftp'] as const,
});

const LastCheckRef = builder
  .objectRef<NonNullable<BankConnection['lastCheck']>>('BankConnectionLastCheck')
  .implement({
    description: 'The last check of the SFTP connection: what it found, or why not in the bank’s words.',
    fields: (t) => answerFields(t, BankConnectionLastCheck, { scalars: { at: 'DateTime' } }),
  });

export const BankConnectionRef = builder.objectRef<BankConnection>('BankConnection').implement({
  description: 'How the company’s NACHA files reach its bank. The password or private key is never returned.',
  fields: (t) =>
    answerFields(t, BankConnectionAnswer, {
      refs: { mode: BankConnectionModeEnum, lastCheck: LastCheckRef },
    }),
});

builder.objectRef<BankConnectionTest>('BankConnectionTest').implement({
  description: 'A check that passed: logged in with the host key pinned, both folders listed.',
  fields: (t) => answerFields(t, BankConnectionTestAnswer, { scalars: { checkedAt: 'DateTime' } }),
});

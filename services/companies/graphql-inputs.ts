// The GraphQL input objects the companies' commands take (services/companies/endpoints.ts), in the
// order they print: the company form, its assignments, its NACHA settings and its bank connection.
import type { GraphQLInputDeclaration } from '../app/endpoints.js';

export const companyInputs: GraphQLInputDeclaration[] = [
  {
    name: 'CompanyInput',
    fields: {
      name: 'String!',
      email: 'String',
      phone: 'String',
      website: 'String',
      address: 'String',
      description: 'String',
      industry: 'String',
      managerId: 'Int',
      processorId: 'Int',
      approverId: 'Int',
      accountantId: 'Int',
      qbPaymentAccountReference: 'String',
      metadata: 'String',
    },
  },
  {
    name: 'CompanyAssignmentsInput',
    description: 'Absent: unchanged. Null: unassigned.',
    fields: {
      managerId: 'Int',
      processorId: 'Int',
      approverId: 'Int',
      accountantId: 'Int',
    },
  },
  {
    name: 'NachaConfigInput',
    fields: {
      bankRoutingNumber: 'String!',
      bankAccountNumber: {
        type: 'String',
        description: 'Absent or the masked value: keep the stored one.',
      },
      bankAccountType: 'BankAccountType!',
      bankName: 'String!',
      originatorStatusCode: 'String',
      companyTaxId: 'String!',
      achCompanyId: 'String',
      immediateDestinationName: 'String!',
      immediateOriginName: 'String',
      companyEntryDescription: 'String',
      companyDiscretionaryData: 'String',
      balancedFile: 'Boolean',
    },
  },
  {
    name: 'BankConnectionInput',
    description: 'A password or private key left out (or empty) keeps the stored one.',
    fields: {
      mode: 'BankConnectionMode!',
      host: 'String',
      port: { type: 'Int', description: 'Default 22.' },
      username: 'String',
      password: { type: 'String', description: 'Write-only.' },
      privateKey: { type: 'String', description: 'Write-only: OpenSSH or PEM, without a passphrase.' },
      inbox: { type: 'String', description: 'Where uploads go (default /inbox).' },
      outbox: { type: 'String', description: 'The bank’s answers (default /outbox).' },
      hostKeyFingerprint: { type: 'String', description: 'SHA256:… as ssh-keygen -lf prints it.' },
      windows: {
        type: '[String!]',
        description: 'Cut-offs, HH:MM New York, in order (default 10:15, 14:30, 16:30).',
      },
    },
  },
];

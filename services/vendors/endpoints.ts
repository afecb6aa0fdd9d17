// The vendors' commands staff use signed in, each declared once (services/app/endpoints.ts): a sync
// from QuickBooks, set or clear bank details, approve or reject a held change, start a micro-deposit
// check, the company's control on changes, and forgetting a vendor. The gateway makes each one's REST
// route (/api/vendors/*), GraphQL mutation and OpenAPI entry.
import { z } from 'zod';
import { BankingControl, BatchBankingResult, Vendor, VendorSync } from '../../schema/vendors/answers.js';
import {
  BankingChangeDecisionInput,
  BankingControlInput,
  BankingInput,
  BatchBankingInput,
  RemittanceAdviceInput,
  VendorSyncInput,
} from '../../schema/vendors/commands.js';
import {
  byId,
  declareCommand,
  type GraphQLInputDeclaration,
  type WithId,
  withoutNulls,
} from '../app/endpoints.js';
import { batchUpdateVendorBanking, clearVendorBanking, updateVendorBanking } from './banking.js';
import { approveBankingChange, rejectBankingChange, setBankingControl } from './banking-changes.js';
import { forgetVendor } from './forget.js';
import { startMicroDeposits } from './micro-deposits.js';
import { setVendorRemittanceAdvice } from './remittance-advice.js';
import { requestVendorSync } from './sync.js';
import type { VendorDto } from './vendor-rows.js';

const BASE = '/api/vendors';
const TAGS = ['vendors'];
const VendorIdParams = z.object({ id: z.string().regex(/^\d+$/).describe('Vendor id') });
const ChangeParams = VendorIdParams.extend({ changeId: z.string().describe('The change’s id') });
const CompanyIdParams = z.object({ companyId: z.string().regex(/^\d+$/).describe('Company id') });
/** A command on a vendor: its company in the caller's staff scope, and not deleted. */
const CHANGEABLE = 'a vendor of a company the caller may see, the company not deleted';

export const vendorInputs: GraphQLInputDeclaration[] = [
  {
    name: 'VendorBankingInput',
    fields: {
      routingNumber: 'String!',
      accountNumber: 'String!',
      accountType: 'String!',
      bankName: 'String',
    },
  },
];

type WithChange = { id: unknown; changeId: unknown; body: unknown };
const byChange = (r: { params: Record<string, string>; body: unknown }): WithChange => ({
  id: r.params.id,
  changeId: r.params.changeId,
  body: r.body,
});
const changeArgs = { id: 'Int!', changeId: 'String!', reason: 'String!' };
const changeInput = (args: Record<string, unknown>): WithChange => ({
  id: args.id,
  changeId: args.changeId,
  body: { reason: args.reason },
});

export const vendorEndpoints = [
  declareCommand({
    name: 'RequestVendorSync',
    permission: 'vendors.write',
    scope: 'a live company the caller may see, connected to QuickBooks',
    run: (app, actor, body: unknown) => requestVendorSync(app, actor, body),
    rest: {
      method: 'POST',
      path: `${BASE}/sync`,
      input: (r) => r.body,
      status: 202,
      message: 'Vendor sync queued',
      doc: {
        summary: 'Queue a sync of the company’s vendors from QuickBooks (progress: vendorSyncProgress)',
        tags: TAGS,
        body: VendorSyncInput,
        data: VendorSync,
        errors: [404, 409],
      },
    },
    graphql: {
      name: 'syncVendors',
      description: 'Queues a sync of the company’s vendors from QuickBooks; follow vendorSyncProgress.',
      args: { companyId: 'Int!', limit: 'Int', offset: 'Int' },
      returns: 'VendorSync!',
      input: (args) => withoutNulls(args),
    },
  }),
  declareCommand({
    name: 'UpdateVendorBanking',
    permission: 'vendors.write',
    scope: CHANGEABLE,
    run: (app, actor, { id, body }: WithId) => updateVendorBanking(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${BASE}/:id/banking`,
      input: byId,
      // Under the company's control the change is held, not live: the message says which.
      message: (vendor: VendorDto) =>
        vendor.pendingBankingChange?.status === 'pending'
          ? 'Bank details change saved: it goes live once another ADMIN or MODERATOR approves it, or the vendor confirms the micro-deposits'
          : 'Banking information updated successfully',
      doc: {
        summary: 'Set the vendor’s bank details (routing check digit, account ≤ 17, checking or savings)',
        tags: TAGS,
        params: VendorIdParams,
        body: BankingInput,
        data: Vendor,
        errors: [404],
      },
    },
    graphql: {
      name: 'updateVendorBanking',
      args: { id: 'Int!', input: 'VendorBankingInput!' },
      returns: 'Vendor!',
      input: (args) => ({ id: args.id, body: withoutNulls(args.input as object) }),
    },
  }),
  declareCommand({
    name: 'ApproveBankingChange',
    permission: 'vendors.approveBankingChange',
    scope: `a held change of ${CHANGEABLE}; not by its maker`,
    run: (app, actor, { id, changeId, body }: WithChange) =>
      approveBankingChange(app, actor, id, changeId, body),
    rest: {
      method: 'POST',
      path: `${BASE}/:id/banking-changes/:changeId/approve`,
      input: byChange,
      message: 'Bank details change approved: it is live',
      doc: {
        summary: 'Approve a held bank detail change (ADMIN, MODERATOR; not its maker): it goes live',
        tags: TAGS,
        params: ChangeParams,
        body: BankingChangeDecisionInput,
        data: Vendor,
        errors: [403, 404, 409],
      },
    },
    graphql: {
      name: 'approveVendorBankingChange',
      description: 'ADMIN or MODERATOR other than its maker: the held change goes live.',
      args: changeArgs,
      returns: 'Vendor!',
      input: changeInput,
    },
  }),
  declareCommand({
    name: 'RejectBankingChange',
    permission: 'vendors.approveBankingChange',
    scope: `a held change of ${CHANGEABLE}`,
    run: (app, actor, { id, changeId, body }: WithChange) =>
      rejectBankingChange(app, actor, id, changeId, body),
    rest: {
      method: 'POST',
      path: `${BASE}/:id/banking-changes/:changeId/reject`,
      input: byChange,
      message: 'Bank details change rejected',
      doc: {
        summary: 'Reject a held bank detail change (ADMIN, MODERATOR): the live bank details stay',
        tags: TAGS,
        params: ChangeParams,
        body: BankingChangeDecisionInput,
        data: Vendor,
        errors: [403, 404, 409],
      },
    },
    graphql: {
      name: 'rejectVendorBankingChange',
      description: 'ADMIN or MODERATOR: the held change is refused; the live bank details stay.',
      args: changeArgs,
      returns: 'Vendor!',
      input: changeInput,
    },
  }),
  declareCommand({
    name: 'StartMicroDeposits',
    permission: 'vendors.microDeposits',
    scope: `a held change of ${CHANGEABLE}`,
    run: (app, actor, { id, changeId }: Omit<WithChange, 'body'>) =>
      startMicroDeposits(app, actor, id, changeId),
    rest: {
      method: 'POST',
      path: `${BASE}/:id/banking-changes/:changeId/micro-deposits`,
      input: byChange,
      message:
        'Micro-deposit check started: download its file for the bank; the vendor’s contact gets a link to enter the amounts',
      doc: {
        summary:
          'Start a micro-deposit check of a held change (ADMIN, MODERATOR): two credits under $1.00 to its new account in a penny-test file, and a link to the vendor’s contact on record to enter them',
        description:
          'Refused (409) when the change is not pending, is frozen, the vendor had no e-mail on record before the change, or the day’s penny-test limits are reached (2 a vendor, 6 a company a New York day, shared with approvals’ penny tests). A new check replaces the earlier one.',
        tags: TAGS,
        params: ChangeParams,
        data: Vendor,
        errors: [404, 409],
      },
    },
    graphql: {
      name: 'startVendorMicroDeposits',
      description:
        'ADMIN or MODERATOR: two credits under $1.00 to the held change’s new account (a penny-test file, within the day’s penny-test limits) and a link to the vendor’s contact on record to enter them; the right amounts make the change live.',
      args: { id: 'Int!', changeId: 'String!' },
      returns: 'Vendor!',
      input: (args) => ({ id: args.id, changeId: args.changeId }),
    },
  }),
  declareCommand({
    name: 'SetBankingControl',
    permission: 'vendors.bankingControl',
    scope: 'a live company the caller may see',
    run: (app, actor, { id, body }: WithId) => setBankingControl(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${BASE}/banking-control/:companyId`,
      input: (r) => ({ id: r.params.companyId, body: r.body }),
      message: 'Bank detail change control saved',
      doc: {
        summary: 'Set the company’s control on bank detail changes (ADMIN; turning it off needs a reason)',
        tags: TAGS,
        params: CompanyIdParams,
        body: BankingControlInput,
        data: BankingControl,
        errors: [403, 404],
      },
    },
    graphql: {
      name: 'setBankingChangeControl',
      description:
        'ADMIN: the company’s control on bank detail changes (on by default); turning it off needs a reason.',
      args: { companyId: 'Int!', enabled: 'Boolean!', flagDays: 'Int', reason: 'String' },
      returns: 'BankingChangeControl!',
      input: (args) => ({
        id: args.companyId,
        body: {
          enabled: args.enabled,
          flagDays: args.flagDays ?? undefined,
          reason: args.reason ?? undefined,
        },
      }),
    },
  }),
  declareCommand({
    name: 'ClearVendorBanking',
    permission: 'vendors.write',
    scope: CHANGEABLE,
    run: (app, actor, id: unknown) => clearVendorBanking(app, actor, id),
    rest: {
      method: 'DELETE',
      path: `${BASE}/:id/banking`,
      input: (r) => r.params.id,
      message: 'Banking information cleared successfully',
      doc: {
        summary: 'Clear the vendor’s bank details',
        tags: TAGS,
        params: VendorIdParams,
        data: Vendor,
        errors: [404],
      },
    },
    graphql: {
      name: 'clearVendorBanking',
      args: { id: 'Int!' },
      returns: 'Vendor!',
      input: (args) => args.id,
    },
  }),
  declareCommand({
    name: 'SetVendorRemittanceAdvice',
    permission: 'vendors.write',
    scope: CHANGEABLE,
    run: (app, actor, { id, body }: WithId) => setVendorRemittanceAdvice(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${BASE}/:id/remittance-advice`,
      input: byId,
      message: (vendor: VendorDto) =>
        vendor.remittanceAdvice ? 'Remittance advice turned on' : 'Remittance advice turned off',
      doc: {
        summary:
          'Turn on or off the e-mail that tells the vendor what it was paid when a file paying it goes to the bank (ADMIN, MODERATOR)',
        tags: TAGS,
        params: VendorIdParams,
        body: RemittanceAdviceInput,
        data: Vendor,
        errors: [404, 409],
      },
    },
    graphql: {
      name: 'setVendorRemittanceAdvice',
      description:
        'ADMIN or MODERATOR: whether the vendor is mailed a remittance advice when a file paying it goes to the bank.',
      args: { id: 'Int!', enabled: 'Boolean!' },
      returns: 'Vendor!',
      input: (args) => ({ id: args.id, body: { enabled: args.enabled } }),
    },
  }),
  declareCommand({
    name: 'ForgetVendor',
    permission: 'vendors.forget',
    // Erasure outlives the company: a deleted company's vendor can still be forgotten.
    scope: 'any vendor (the administrator’s call), its company deleted or not',
    run: (app, actor, id: unknown) => forgetVendor(app, actor, id).then(() => null),
    rest: {
      method: 'DELETE',
      path: `${BASE}/:id`,
      input: (r) => r.params.id,
      message: 'Vendor forgotten',
      doc: {
        summary:
          'Forget a vendor (ADMIN): its data key is deleted, so its contacts and bank numbers can no longer be read; it leaves every list',
        tags: TAGS,
        params: VendorIdParams,
        data: z.null(),
        errors: [404],
      },
    },
    graphql: {
      name: 'forgetVendor',
      description:
        'ADMIN: deletes the vendor’s data key (its contacts and bank numbers become unreadable) and drops it from every list.',
      args: { id: 'Int!' },
      returns: 'Boolean!',
      input: (args) => args.id,
      answer: () => true,
    },
  }),
  declareCommand({
    name: 'BatchUpdateVendorBanking',
    permission: 'vendors.write',
    scope: `each vendor ${CHANGEABLE}; one refused is reported, the others go on`,
    run: (app, actor, body: unknown) => batchUpdateVendorBanking(app, actor, body),
    rest: {
      method: 'POST',
      path: `${BASE}/batch-update-banking`,
      input: (r) => r.body,
      doc: {
        summary: 'Set the bank details of up to 500 vendors; a result per vendor',
        tags: TAGS,
        body: BatchBankingInput,
        data: BatchBankingResult,
      },
    },
    // REST only: the spec's path; the screens set one vendor at a time (updateVendorBanking).
  }),
];

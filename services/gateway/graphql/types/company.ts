// The Company type (spec 1 §3), its queries and mutations (spec 1 §7 Companies), and live changes.
import {
  type Assignee,
  activateCompany,
  type CompanyDto,
  changeAssignments,
  configureNacha,
  createCompany,
  deactivateCompany,
  deleteCompany,
  getCompany,
  listCompanies,
  searchCompanies,
  setPaymentAccount,
  updateCompany,
} from '../../../app/companies.js';
import type { Page } from '../../../app/users.js';
import { authorize } from '../../../auth/permissions.js';
import { sharedRead } from '../../live.js';
import { builder } from '../builder.js';
import { run } from '../errors.js';
import { withoutNulls } from '../inputs.js';

const CompanyStatusEnum = builder.enumType('CompanyStatus', {
  values: ['ACTIVE', 'INACTIVE', 'SUSPENDED'] as const,
});
const QbConnectionStatusEnum = builder.enumType('QbConnectionStatus', {
  values: ['connected', 'disconnected', 'error'] as const,
});
const BankAccountTypeEnum = builder.enumType('BankAccountType', { values: ['checking', 'savings'] as const });

const AssigneeRef = builder.objectRef<Assignee>('CompanyAssignee').implement({
  description: 'A person assigned to a company: its manager, or a user as processor, approver or accountant.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    firstName: t.exposeString('firstName', { nullable: true }),
    lastName: t.exposeString('lastName', { nullable: true }),
    email: t.exposeString('email'),
  }),
});

export const CompanyRef = builder.objectRef<CompanyDto>('Company').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    email: t.exposeString('email', { nullable: true }),
    phone: t.exposeString('phone', { nullable: true }),
    website: t.exposeString('website', { nullable: true }),
    address: t.exposeString('address', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    industry: t.exposeString('industry', { nullable: true }),
    status: t.field({ type: CompanyStatusEnum, resolve: (c) => c.status }),
    isActive: t.exposeBoolean('isActive'),
    qbRealmId: t.exposeString('qbRealmId', { nullable: true }),
    qbConnectionStatus: t.field({
      type: QbConnectionStatusEnum,
      nullable: true,
      resolve: (c) => c.qbConnectionStatus,
    }),
    qbLastRefresh: t.field({ type: 'DateTime', nullable: true, resolve: (c) => c.qbLastRefresh }),
    qbPaymentAccountReference: t.exposeString('qbPaymentAccountReference', { nullable: true }),
    managerId: t.exposeInt('managerId', { nullable: true }),
    processorId: t.exposeInt('processorId', { nullable: true }),
    approverId: t.exposeInt('approverId', { nullable: true }),
    accountantId: t.exposeInt('accountantId', { nullable: true }),
    manager: t.field({ type: AssigneeRef, nullable: true, resolve: (c) => c.manager }),
    processor: t.field({ type: AssigneeRef, nullable: true, resolve: (c) => c.processor }),
    approver: t.field({ type: AssigneeRef, nullable: true, resolve: (c) => c.approver }),
    accountant: t.field({ type: AssigneeRef, nullable: true, resolve: (c) => c.accountant }),
    nachaConfigured: t.exposeBoolean('nachaConfigured'),
    bankRoutingNumber: t.exposeString('bankRoutingNumber', { nullable: true }),
    bankAccountNumber: t.exposeString('bankAccountNumber', {
      nullable: true,
      description: 'Masked: only the last four characters show.',
    }),
    bankAccountType: t.field({
      type: BankAccountTypeEnum,
      nullable: true,
      resolve: (c) => c.bankAccountType,
    }),
    bankName: t.exposeString('bankName', { nullable: true }),
    originatorStatusCode: t.exposeString('originatorStatusCode', { nullable: true }),
    companyTaxId: t.exposeString('companyTaxId', { nullable: true }),
    achCompanyId: t.exposeString('achCompanyId', { nullable: true }),
    immediateDestinationName: t.exposeString('immediateDestinationName', { nullable: true }),
    immediateOriginName: t.exposeString('immediateOriginName', { nullable: true }),
    companyEntryDescription: t.exposeString('companyEntryDescription', { nullable: true }),
    companyDiscretionaryData: t.exposeString('companyDiscretionaryData', { nullable: true }),
    balancedFile: t.exposeBoolean('balancedFile', { nullable: true }),
    createdAt: t.field({ type: 'DateTime', resolve: (c) => c.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (c) => c.updatedAt }),
  }),
});

const CompanyPage = builder.objectRef<Page<CompanyDto>>('CompanyPage').implement({
  fields: (t) => ({
    data: t.field({ type: [CompanyRef], resolve: (p) => p.data }),
    total: t.exposeInt('total'),
    page: t.exposeInt('page'),
    limit: t.exposeInt('limit'),
    totalPages: t.exposeInt('totalPages'),
  }),
});

builder.queryField('companies', (t) =>
  t.field({
    type: CompanyPage,
    description: 'Companies, newest first; search (name or e-mail), status and connection filters.',
    args: {
      search: t.arg.string({ required: false }),
      status: t.arg({ type: CompanyStatusEnum, required: false }),
      qbConnectionStatus: t.arg.string({
        required: false,
        description: 'connected, disconnected, error or not_connected',
      }),
      page: t.arg.int({ required: false }),
      limit: t.arg.int({ required: false }),
    },
    resolve: (_, args, ctx) => run(() => listCompanies(ctx.app, ctx.actor, withoutNulls(args))),
  }),
);

builder.queryField('company', (t) =>
  t.field({
    type: CompanyRef,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_, args, ctx) => run(() => getCompany(ctx.app, ctx.actor, args.id)),
  }),
);

builder.queryField('searchCompanies', (t) =>
  t.field({
    type: [CompanyRef],
    args: { q: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) => run(() => searchCompanies(ctx.app, ctx.actor, args)),
  }),
);

const CompanyInputRef = builder.inputType('CompanyInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    email: t.string({ required: false }),
    phone: t.string({ required: false }),
    website: t.string({ required: false }),
    address: t.string({ required: false }),
    description: t.string({ required: false }),
    industry: t.string({ required: false }),
    managerId: t.int({ required: false }),
    processorId: t.int({ required: false }),
    approverId: t.int({ required: false }),
    accountantId: t.int({ required: false }),
    qbPaymentAccountReference: t.string({ required: false }),
    metadata: t.string({ required: false }),
  }),
});

const AssignmentsInputRef = builder.inputType('CompanyAssignmentsInput', {
  description: 'Absent: unchanged. Null: unassigned.',
  fields: (t) => ({
    managerId: t.int({ required: false }),
    processorId: t.int({ required: false }),
    approverId: t.int({ required: false }),
    accountantId: t.int({ required: false }),
  }),
});

const NachaConfigInputRef = builder.inputType('NachaConfigInput', {
  fields: (t) => ({
    bankRoutingNumber: t.string({ required: true }),
    bankAccountNumber: t.string({
      required: false,
      description: 'Absent or the masked value: keep the stored one.',
    }),
    bankAccountType: t.field({ type: BankAccountTypeEnum, required: true }),
    bankName: t.string({ required: true }),
    originatorStatusCode: t.string({ required: false }),
    companyTaxId: t.string({ required: true }),
    achCompanyId: t.string({ required: false }),
    immediateDestinationName: t.string({ required: true }),
    immediateOriginName: t.string({ required: false }),
    companyEntryDescription: t.string({ required: false }),
    companyDiscretionaryData: t.string({ required: false }),
    balancedFile: t.boolean({ required: false }),
  }),
});

const companyMutation = (
  name: string,
  description: string,
  call: (
    ctx: Parameters<typeof getCompany>[0],
    actor: Parameters<typeof getCompany>[1],
    id: number,
  ) => Promise<CompanyDto>,
) =>
  builder.mutationField(name, (t) =>
    t.field({
      type: CompanyRef,
      description,
      args: { id: t.arg.int({ required: true }) },
      resolve: (_, args, ctx) => run(() => call(ctx.app, ctx.actor, args.id)),
    }),
  );

builder.mutationField('createCompany', (t) =>
  t.field({
    type: CompanyRef,
    args: { input: t.arg({ type: CompanyInputRef, required: true }) },
    resolve: (_, args, ctx) => run(() => createCompany(ctx.app, ctx.actor, args.input)),
  }),
);

builder.mutationField('updateCompany', (t) =>
  t.field({
    type: CompanyRef,
    description: 'Replaces the form fields: what is absent is cleared, null unassigns.',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: CompanyInputRef, required: true }) },
    resolve: (_, args, ctx) => run(() => updateCompany(ctx.app, ctx.actor, args.id, args.input)),
  }),
);

builder.mutationField('changeCompanyAssignments', (t) =>
  t.field({
    type: CompanyRef,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: AssignmentsInputRef, required: true }) },
    resolve: (_, args, ctx) => run(() => changeAssignments(ctx.app, ctx.actor, args.id, args.input)),
  }),
);

builder.mutationField('setCompanyPaymentAccount', (t) =>
  t.field({
    type: CompanyRef,
    args: { id: t.arg.int({ required: true }), qbPaymentAccountReference: t.arg.string({ required: false }) },
    resolve: (_, args, ctx) =>
      run(() =>
        setPaymentAccount(ctx.app, ctx.actor, args.id, {
          qbPaymentAccountReference: args.qbPaymentAccountReference,
        }),
      ),
  }),
);

builder.mutationField('configureCompanyNacha', (t) =>
  t.field({
    type: CompanyRef,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: NachaConfigInputRef, required: true }) },
    resolve: (_, args, ctx) =>
      run(() => configureNacha(ctx.app, ctx.actor, args.id, withoutNulls(args.input))),
  }),
);

companyMutation('activateCompany', 'Refused when an active company has the same name.', activateCompany);
companyMutation('deactivateCompany', 'Frees the name for another active company.', deactivateCompany);

builder.mutationField('deleteCompany', (t) =>
  t.boolean({
    description: 'Gone from lists; its history stays in the log.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_, args, ctx) =>
      run(async () => {
        await deleteCompany(ctx.app, ctx.actor, args.id);
        return true;
      }),
  }),
);

const CompanyChange = builder
  .objectRef<{ id: number; type: string; company: CompanyDto | null }>('CompanyChange')
  .implement({
    fields: (t) => ({
      id: t.exposeInt('id'),
      type: t.exposeString('type', {
        description: 'The event that changed the company, e.g. CompanyUpdated.',
      }),
      company: t.field({
        type: CompanyRef,
        nullable: true,
        description: 'The company as the read model holds it now; null once deleted.',
        resolve: (c) => c.company,
      }),
    }),
  });

builder.subscriptionField('companyChanged', (t) =>
  t.field({
    type: CompanyChange,
    description: 'Pushed after the companies read model changed. Optionally one company only.',
    authScopes: { permission: 'companies.read' },
    args: { id: t.arg.int({ required: false }) },
    subscribe: (_, args, ctx) => ctx.live.subscribe('company', args.id == null ? undefined : String(args.id)),
    resolve: async (notice, _, ctx) => {
      authorize(ctx.actor, 'companies.read');
      const company = await sharedRead(notice, 'company', () =>
        getCompany(ctx.app, ctx.actor, Number(notice.id)).catch(() => null),
      );
      return { id: Number(notice.id), type: String(notice.data?.type ?? 'changed'), company };
    },
  }),
);

// The Company type, its queries and live changes; its commands are declared once in
// services/companies/endpoints.ts, and their mutations name the types here.
// The types' fields come from the answers (schema/companies/answers.ts).
import {
  Company,
  CompanyAssignee,
  CompanyPage as CompanyPageAnswer,
} from '../../../../schema/companies/answers.js';
import { withoutNulls } from '../../../app/endpoints.js';
import { authorize } from '../../../auth/permissions.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';
import { run, toGraphQLError } from '../../../gateway/graphql/errors.js';
import { inStaffScope, sharedRead } from '../../../gateway/live.js';
import { AppError } from '../../../shared/errors.js';
import type { Page } from '../../../shared/paging.js';
import {
  type Assignee,
  type CompanyDto,
  type CompanyView,
  companyViewFor,
  findCompany,
  isWholeCompany,
} from '../../company-rows.js';
import { getCompany, listCompanies, searchCompanies } from '../../queries.js';
import { BankConnectionRef } from './bank-connection.js';

const CompanyStatusEnum = builder.enumType('CompanyStatus', {
  values: ['ACTIVE', 'INACTIVE', 'SUSPENDED'] as const,
});
const QbConnectionStatusEnum = builder.enumType('QbConnectionStatus', {
  values: ['connected', 'disconnected', 'error'] as const,
});
const BankAccountTypeEnum = builder.enumType('BankAccountType', { values: ['checking', 'savings'] as const });

const AssigneeRef = builder.objectRef<Assignee>('CompanyAssignee').implement({
  description: 'A person assigned to a company: its manager, or a user as processor, approver or accountant.',
  fields: (t) => answerFields(t, CompanyAssignee),
});

/** Refused with FORBIDDEN: the field's auth runs before its resolver. */
const refused = () =>
  toGraphQLError(new AppError('FORBIDDEN', 'You do not have permission to read this company field'));

/** ADMIN only: MODERATOR and USER read a company's id and name. */
const details = {
  authScopes: { permission: 'companies.details' },
  unauthorizedError: refused,
} as const;

/** A field of the whole company; a reference never reaches here past `details`, and is refused if it does. */
const whole =
  <T>(read: (c: CompanyDto) => T) =>
  (c: CompanyView): T => {
    if (!isWholeCompany(c)) throw refused();
    return read(c);
  };

/** Fields of the whole company: each behind `details`, and refused for a reference. */
const wholeCompanyFields = (t: any) => ({
  field: (options: { resolve: (c: CompanyDto) => unknown }) =>
    t.field({ ...details, ...options, resolve: whole(options.resolve) }),
});

export const CompanyRef = builder.objectRef<CompanyView>('Company').implement({
  description:
    'A client company. ADMIN reads every field; MODERATOR and USER read id and name (a MODERATOR also qbConnectionStatus), and any other field is refused (FORBIDDEN).',
  fields: (t) => ({
    ...answerFields(t, Company, { only: ['id', 'name'] }),
    ...answerFields(wholeCompanyFields(t), Company, {
      omit: ['id', 'name', 'qbConnectionStatus', 'bankAccountNumber'],
      refs: {
        status: CompanyStatusEnum,
        manager: AssigneeRef,
        processor: AssigneeRef,
        approver: AssigneeRef,
        accountant: AssigneeRef,
        bankAccountType: BankAccountTypeEnum,
        bankConnection: BankConnectionRef,
      },
      scalars: { qbLastRefresh: 'DateTime', createdAt: 'DateTime', updatedAt: 'DateTime' },
    }),
    qbConnectionStatus: t.field({
      type: QbConnectionStatusEnum,
      nullable: true,
      description: 'ADMIN and MODERATOR (the vendors page syncs a connected company).',
      authScopes: { permission: 'companies.connectionStatus' },
      unauthorizedError: refused,
      resolve: (c) => c.qbConnectionStatus ?? null,
    }),
    bankAccountNumber: t.string({
      ...details,
      nullable: true,
      description: 'Masked: only the last four characters show.',
      resolve: whole((c) => c.bankAccountNumber),
    }),
  }),
});

const CompanyPage = builder.objectRef<Page<CompanyView>>('CompanyPage').implement({
  fields: (t) => answerFields(t, CompanyPageAnswer, { refs: { data: CompanyRef } }),
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

const CompanyChange = builder
  .objectRef<{ id: number; type: string; company: CompanyView | null }>('CompanyChange')
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
    subscribe: (_, args, ctx) =>
      inStaffScope(
        ctx.live.subscribe('company', args.id == null ? undefined : String(args.id)),
        ctx.app,
        ctx.actor,
        (n) => Number(n.id),
      ),
    resolve: async (notice, _, ctx) => {
      authorize(ctx.actor, 'companies.read');
      // One read for every subscriber of the notice, shown to each as it may see it.
      const company = await sharedRead(notice, 'company', () =>
        findCompany(ctx.app, Number(notice.id)).catch(() => null),
      );
      return {
        id: Number(notice.id),
        type: String(notice.data?.type ?? 'changed'),
        company: company && companyViewFor(ctx.actor, company),
      };
    },
  }),
);

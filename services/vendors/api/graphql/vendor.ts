// The Vendor type, its queries, and live changes and sync progress. The types' fields come from the
// answers (schema/vendors/answers.ts); the mutations are declared once in services/vendors/endpoints.ts.
import {
  BankingBlock as BankingBlockAnswer,
  BankingChange as BankingChangeAnswer,
  BankingControl as BankingControlAnswer,
  MicroDeposits as MicroDepositsAnswer,
  Vendor,
  VendorHistoryEntry as VendorHistoryAnswer,
  VendorPage as VendorPageAnswer,
  VendorSync,
  VendorSyncProgress,
} from '../../../../schema/vendors/answers.js';
import { withoutNulls } from '../../../app/endpoints.js';
import { authorize } from '../../../auth/permissions.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';
import { run } from '../../../gateway/graphql/errors.js';
import { inStaffScope, sharedRead } from '../../../gateway/live.js';
import type { Page } from '../../../shared/paging.js';
import { getBankingControl, vendorBankingChanges } from '../../banking-changes.js';
import { type VendorHistoryEntry, vendorHistory } from '../../history.js';
import { getVendor, listVendors } from '../../queries.js';
import { getVendorSync, type VendorSyncDto } from '../../sync.js';
import type { VendorDto } from '../../vendor-rows.js';

const AccountTypeEnum = builder.enumType('AccountType', { values: ['checking', 'savings'] as const });

const MicroDepositsRef = builder
  .objectRef<import('zod').infer<typeof MicroDepositsAnswer>>('VendorMicroDeposits')
  .implement({
    description:
      'A micro-deposit check of a held change: two credits under $1.00 to its new account (amounts never shown), and the vendor’s tries.',
    fields: (t) =>
      answerFields(t, MicroDepositsAnswer, {
        refs: { status: 'String' },
        scalars: { sentAt: 'DateTime', expiresAt: 'DateTime' },
      }),
  });

type BankingChangeDto = import('zod').infer<typeof BankingChangeAnswer>;
export const BankingChangeRef = builder.objectRef<BankingChangeDto>('VendorBankingChange').implement({
  description:
    'A change of a vendor’s bank details, masked: held for a second look, frozen by the vendor’s contact, approved, rejected, or live at once.',
  fields: (t) =>
    answerFields(t, BankingChangeAnswer, {
      refs: {
        accountType: AccountTypeEnum,
        status: 'String',
        source: 'String',
        contactNotice: 'String',
        microDeposits: MicroDepositsRef,
      },
      scalars: { requestedAt: 'DateTime', decidedAt: 'DateTime' },
    }),
});

const BankingControlRef = builder
  .objectRef<import('zod').infer<typeof BankingControlAnswer>>('BankingChangeControl')
  .implement({ fields: (t) => answerFields(t, BankingControlAnswer) });

const BankingBlockRef = builder
  .objectRef<import('zod').infer<typeof BankingBlockAnswer>>('VendorBankingBlock')
  .implement({
    description:
      'The vendor’s banking blocked after the bank returned a payment: no NACHA file pays it until a changed account goes live.',
    fields: (t) => answerFields(t, BankingBlockAnswer, { scalars: { since: 'DateTime' } }),
  });

export const VendorRef = builder.objectRef<VendorDto>('Vendor').implement({
  fields: (t) => ({
    ...answerFields(t, Vendor, {
      omit: ['routingNumber', 'accountNumber', 'isUnmasked'],
      refs: {
        accountType: AccountTypeEnum,
        pendingBankingChange: BankingChangeRef,
        bankingBlock: BankingBlockRef,
      },
      scalars: { createdAt: 'DateTime', updatedAt: 'DateTime', qbSyncedAt: 'DateTime' },
    }),
    routingNumber: t.exposeString('routingNumber', {
      nullable: true,
      description: 'Masked unless unmasked.',
    }),
    accountNumber: t.exposeString('accountNumber', {
      nullable: true,
      description: 'Masked unless unmasked.',
    }),
    // Non-null in GraphQL: false when the read leaves it out (lists).
    isUnmasked: t.boolean({ resolve: (v) => v.isUnmasked === true }),
  }),
});

const VendorPage = builder.objectRef<Page<VendorDto>>('VendorPage').implement({
  fields: (t) => answerFields(t, VendorPageAnswer, { refs: { data: VendorRef } }),
});

const VendorHistoryRef = builder.objectRef<VendorHistoryEntry>('VendorHistoryEntry').implement({
  fields: (t) => answerFields(t, VendorHistoryAnswer, { scalars: { at: 'DateTime' } }),
});

const VendorSyncRef = builder.objectRef<VendorSyncDto>('VendorSync').implement({
  fields: (t) =>
    answerFields(t, VendorSync, {
      // A String in GraphQL (as the schema has always said), one of the answer's statuses.
      refs: { status: 'String' },
      scalars: { requestedAt: 'DateTime', completedAt: 'DateTime' },
    }),
});

builder.queryField('vendors', (t) =>
  t.field({
    type: VendorPage,
    description: 'Vendors by name, 20 a page; bank numbers masked (ADMIN, MODERATOR).',
    args: {
      search: t.arg.string({ required: false }),
      companyId: t.arg.int({ required: false }),
      hasBanking: t.arg.boolean({ required: false }),
      active: t.arg.boolean({ required: false }),
      page: t.arg.int({ required: false }),
      limit: t.arg.int({ required: false }),
    },
    resolve: (_, args, ctx) => run(() => listVendors(ctx.app, ctx.actor, withoutNulls(args))),
  }),
);

builder.queryField('vendor', (t) =>
  t.field({
    type: VendorRef,
    description: 'One vendor. showUnmasked records the unmask (who, when), then shows the numbers.',
    args: { id: t.arg.int({ required: true }), showUnmasked: t.arg.boolean({ required: false }) },
    resolve: (_, args, ctx) =>
      run(() => getVendor(ctx.app, ctx.actor, args.id, { showUnmasked: args.showUnmasked ?? false })),
  }),
);

builder.queryField('vendorHistory', (t) =>
  t.field({
    type: [VendorHistoryRef],
    args: { id: t.arg.int({ required: true }) },
    resolve: (_, args, ctx) => run(() => vendorHistory(ctx.app, ctx.actor, args.id)),
  }),
);

builder.queryField('vendorSync', (t) =>
  t.field({
    type: VendorSyncRef,
    args: { syncId: t.arg.string({ required: true }) },
    resolve: (_, args, ctx) => run(() => getVendorSync(ctx.app, ctx.actor, args.syncId)),
  }),
);

builder.queryField('vendorBankingChanges', (t) =>
  t.field({
    type: [BankingChangeRef],
    description: 'Every change of the vendor’s bank details, newest first (masked).',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_, args, ctx) => run(() => vendorBankingChanges(ctx.app, ctx.actor, args.id)),
  }),
);

builder.queryField('bankingChangeControl', (t) =>
  t.field({
    type: BankingControlRef,
    args: { companyId: t.arg.int({ required: true }) },
    resolve: (_, args, ctx) => run(() => getBankingControl(ctx.app, ctx.actor, args.companyId)),
  }),
);

const VendorChange = builder
  .objectRef<{ id: number; type: string; vendor: VendorDto | null }>('VendorChange')
  .implement({
    fields: (t) => ({
      id: t.exposeInt('id'),
      type: t.exposeString('type'),
      vendor: t.field({ type: VendorRef, nullable: true, resolve: (c) => c.vendor }),
    }),
  });

builder.subscriptionField('vendorChanged', (t) =>
  t.field({
    type: VendorChange,
    description: 'Pushed after the vendors read model changed (numbers masked). Optionally one vendor.',
    authScopes: { permission: 'vendors.read' },
    args: { id: t.arg.int({ required: false }) },
    subscribe: (_, args, ctx) =>
      inStaffScope(
        ctx.live.subscribe('vendor', args.id == null ? undefined : String(args.id)),
        ctx.app,
        ctx.actor,
      ),
    resolve: async (notice, _, ctx) => {
      authorize(ctx.actor, 'vendors.read');
      const vendor = await sharedRead(notice, 'vendor', () =>
        getVendor(ctx.app, ctx.actor, Number(notice.id)).catch(() => null),
      );
      return { id: Number(notice.id), type: String(notice.data?.type ?? 'changed'), vendor };
    },
  }),
);

const SyncProgressRef = builder
  .objectRef<{
    syncId: string;
    companyId: number;
    processed: number;
    synced: number;
    failed: number;
    total: number | null;
    done: boolean;
    waiting: boolean;
    resumesAt: string | null;
  }>('VendorSyncProgress')
  .implement({
    fields: (t) => ({
      ...answerFields(t, VendorSyncProgress, { omit: ['total', 'waiting', 'resumesAt'] }),
      total: t.exposeInt('total', {
        nullable: true,
        description: 'Vendors QuickBooks has from the offset on; null before the count',
      }),
      // Non-null in GraphQL: false when the notice says nothing of a wait.
      waiting: t.exposeBoolean('waiting', {
        description: 'QuickBooks asked to wait (throttled) or did not answer: the sync goes on at resumesAt',
      }),
      resumesAt: t.exposeString('resumesAt', { nullable: true }),
    }),
  });

builder.subscriptionField('vendorSyncProgress', (t) =>
  t.field({
    type: SyncProgressRef,
    description: 'The progress of one vendor sync, pushed page by page until done.',
    authScopes: { permission: 'vendors.read' },
    args: { syncId: t.arg.string({ required: true }) },
    subscribe: (_, args, ctx) =>
      inStaffScope(ctx.live.subscribe('vendorsync', args.syncId), ctx.app, ctx.actor),
    resolve: async (notice, _, ctx) => {
      authorize(ctx.actor, 'vendors.read');
      const d = (notice.data ?? {}) as Record<string, unknown>;
      // The projection's notice (request or completion) carries no counts: read the sync then.
      if (typeof d.processed !== 'number') {
        const s = await getVendorSync(ctx.app, ctx.actor, notice.id);
        const done = s.status === 'completed' || s.status === 'failed';
        return {
          syncId: s.syncId,
          companyId: s.companyId,
          processed: s.synced + s.failed,
          synced: s.synced,
          failed: s.failed,
          total: null,
          done,
          waiting: false,
          resumesAt: null,
        };
      }
      return {
        syncId: notice.id,
        companyId: Number(d.companyId),
        processed: Number(d.processed),
        synced: Number(d.synced),
        failed: Number(d.failed),
        total: typeof d.total === 'number' ? d.total : null,
        done: d.done === true,
        waiting: d.waiting === true,
        resumesAt: typeof d.resumesAt === 'string' ? d.resumesAt : null,
      };
    },
  }),
);

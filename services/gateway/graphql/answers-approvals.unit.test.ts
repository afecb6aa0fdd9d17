// The approvals and dashboard GraphQL types are held to their answers (schema/approvals/answers.ts,
// schema/dashboard/answers.ts): a field added to, removed from or retyped on one side fails here,
// unless the difference is listed below with the reason GraphQL differs from REST.
import type { GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AchStatus,
  Approval,
  ApprovalBill,
  ApprovalBillCandidate,
  ApprovalBulkResult,
  ApprovalDuplicate,
  ApprovalExportFile,
  ApprovalHistoryEntry,
  ApprovalManagerOption,
  ApprovalPage,
  ApprovalPolicy,
  ApprovalStats,
  ManagerRef,
  PersonRef,
} from '../../../schema/approvals/answers.js';
import { ActivityItem, ApprovalsDay, DashboardStats } from '../../../schema/dashboard/answers.js';
import { answerDrift, type DriftOptions } from './answer-drift.js';
import { schema } from './schema.js';

const type = (name: string) => {
  const t = schema.getType(name);
  if (!t) throw new Error(`no GraphQL type ${name}`);
  return t as GraphQLObjectType;
};

// GraphQL names the bill's fields in its own style, REST keeps QuickBooks' names: each GraphQL field
// maps to the answer's field it serves, so the mapping is held to the answer too.
const BILL = {
  id: 'Id',
  docNumber: 'DocNumber',
  txnDate: 'TxnDate',
  dueDate: 'DueDate',
  totalAmt: 'TotalAmt',
  balance: 'Balance',
  currency: 'CurrencyRef',
  vendorQbId: 'VendorRef.value',
  vendorName: 'VendorRef.name',
  vendorCompanyName: 'VendorInfo.CompanyName',
  vendorEmail: 'VendorInfo.Email',
  vendorPhone: 'VendorInfo.Phone',
  vendorAddress: 'VendorAddr',
  lines: 'Line',
  attachableId: 'AttachableId',
  invoiceFileName: 'InvoiceFileName',
  invoiceAvailable: 'invoiceAvailable',
  achStatus: 'achStatus',
} as const;
const LINE = {
  id: 'Id',
  description: 'Description',
  amount: 'Amount',
  qty: 'Qty',
  itemName: 'ItemName',
  accountName: 'AccountName',
} as const;
const ADDRESS = {
  line1: 'Line1',
  city: 'City',
  countrySubDivisionCode: 'CountrySubDivisionCode',
  postalCode: 'PostalCode',
} as const;

type AnyObject = z.ZodObject<Record<string, z.ZodType>>;
const shapeOf = (s: z.ZodType): Record<string, z.ZodType> => {
  const inner = s instanceof z.ZodNullable ? s.unwrap() : s;
  return (inner as AnyObject).shape;
};
const at = (s: z.ZodType, path: string): z.ZodType =>
  path.split('.').reduce<z.ZodType>((x, key) => {
    const field = shapeOf(x)[key];
    if (!field) throw new Error(`the answer has no ${path}`);
    return field;
  }, s);
const renamed = (s: z.ZodType, names: Record<string, string>) =>
  z.object(Object.fromEntries(Object.entries(names).map(([gql, path]) => [gql, at(s, path)])));

const billLine = renamed(ApprovalBill.shape.Line.element, LINE);
const billAsGraphql = renamed(ApprovalBill, BILL).extend({
  vendorAddress: renamed(ApprovalBill.shape.VendorAddr, ADDRESS).nullable(),
  lines: z.array(billLine),
});

const ACCOUNT_TYPE = 'a String in GraphQL (checking or savings), an enum in REST: kept as the schema has it';
const achOptions: DriftOptions = { graphqlOnly: { accountType: ACCOUNT_TYPE } };

// GraphQL's billIds are the lists (REST's billIds are comma-separated copies) and its bills are the
// parsed bills.
const approvalAsGraphql = Approval.omit({
  billIds: true,
  approvedBillIds: true,
  billIdList: true,
  approvedBillIdList: true,
  billsParsed: true,
  approvedBillsParsed: true,
}).extend({
  billIds: Approval.shape.billIdList,
  approvedBillIds: Approval.shape.approvedBillIdList,
  bills: z.array(billAsGraphql).nullable(),
  approvedBills: z.array(billAsGraphql).nullable(),
});
const billOptions: DriftOptions = { nested: { achStatus: achOptions } };
const approvalOptions: DriftOptions = {
  restOnly: {
    company: 'REST’s copy of companyId and companyName as an object',
    billStats: 'REST’s copy of totalAmount and approvedAmount',
  },
  nested: { bills: billOptions, approvedBills: billOptions },
};

const checks: Array<[string, z.ZodObject, DriftOptions?]> = [
  ['Approval', approvalAsGraphql, approvalOptions],
  [
    'ApprovalPage',
    ApprovalPage.extend({ data: z.array(approvalAsGraphql) }),
    { nested: { data: approvalOptions } },
  ],
  ['ApprovalPerson', PersonRef],
  ['ApprovalManager', ManagerRef],
  ['ApprovalBillAchStatus', AchStatus, achOptions],
  ['ApprovalBill', billAsGraphql, billOptions],
  ['ApprovalBillLine', billLine],
  ['ApprovalConfirmedDuplicate', ApprovalDuplicate],
  [
    'ApprovalStats',
    ApprovalStats,
    {
      graphqlOnly: {
        byStatus: 'GraphQL has no map type: a list of { key, count }',
        byPriority: 'GraphQL has no map type: a list of { key, count }',
      },
    },
  ],
  ['ApprovalHistoryEntry', ApprovalHistoryEntry],
  [
    'ApprovalBillCandidate',
    ApprovalBillCandidate,
    {
      restOnly: { duplicateOf: 'GraphQL flattens it into duplicateOfBillId, …ApprovalId, …Paid' },
      graphqlOnly: {
        duplicateOfBillId: 'duplicateOf.billId',
        duplicateOfApprovalId: 'duplicateOf.approvalId',
        duplicateOfPaid: 'duplicateOf.paid (false when none)',
      },
    },
  ],
  [
    'ApprovalBulkResult',
    ApprovalBulkResult,
    {
      restOnly: { summary: 'GraphQL flattens it into processed, succeeded, failed' },
      graphqlOnly: {
        processed: 'summary.processed',
        succeeded: 'summary.succeeded',
        failed: 'summary.failed',
      },
    },
  ],
  ['ApprovalBulkRow', ApprovalBulkResult.shape.results.element],
  ['ApprovalManagerOption', ApprovalManagerOption],
  ['ApprovalPolicy', ApprovalPolicy],
  ['ApprovalExportFile', ApprovalExportFile],
  ['ApprovalsDay', ApprovalsDay],
  ['DashboardStats', DashboardStats],
  ['ActivityItem', ActivityItem],
];

describe('the approvals and dashboard GraphQL types serve their answers', () => {
  it.each(checks)('%s', (name, answer, options) => {
    expect(answerDrift(type(name), answer, options)).toEqual([]);
  });

  it('maps every field of the bill’s answer to a GraphQL field', () => {
    const mapped = new Set<string>(Object.values(BILL));
    const unmapped = Object.entries(ApprovalBill.shape).flatMap(([key, field]) => {
      if (mapped.has(key)) return [];
      const sub = field instanceof z.ZodObject ? Object.keys(field.shape) : [];
      const missing = sub.filter((k) => !mapped.has(`${key}.${k}`)).map((k) => `${key}.${k}`);
      return sub.length > 0 ? missing : [key];
    });
    expect(unmapped).toEqual([]);
    expect(Object.values(LINE).sort()).toEqual(Object.keys(ApprovalBill.shape.Line.element.shape).sort());
    expect(Object.values(ADDRESS).sort()).toEqual(Object.keys(shapeOf(ApprovalBill.shape.VendorAddr)).sort());
  });

  it('fails when a field is on one side only', () => {
    expect(
      answerDrift(type('Approval'), approvalAsGraphql.extend({ paidAt: z.string() }), approvalOptions),
    ).toEqual(['paidAt: in the answer, not on GraphQL Approval']);
    expect(
      answerDrift(type('Approval'), approvalAsGraphql.omit({ approvedBillCount: true }), approvalOptions),
    ).toEqual(['approvedBillCount: on GraphQL Approval, not in the answer']);
    expect(
      answerDrift(
        type('Approval'),
        approvalAsGraphql.extend({ approvedBillCount: z.number().int().nullable() }),
        approvalOptions,
      ),
    ).toEqual(['approvedBillCount: GraphQL is non-null, the answer is nullable']);
  });
});

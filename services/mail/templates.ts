// The product's e-mails. Each template is a zod contract for its data (checked when a mail is
// enqueued and again when it is sent) and a typed function `(data, context) => { subject, html, text }`.
// Data are ids, names and figures: no secret but the one-time action URL its caller makes.
// Amounts are integer cents (USD); dates are ISO strings.
//
// Adding a template: a schema and a content function below, one entry in `mailTemplates`, and a
// case in templates.unit.test.ts. Wording: short, says what happened and what to do next.
import { z } from 'zod';
import { formatDay, formatInstant, formatUsd, plural } from './format.js';
import { type MailContent, type RenderedMail, renderMail } from './layout.js';

/** What a template needs beside its data: where the web app is (links to its pages). */
export interface MailContext {
  /** The web app's origin, e.g. `https://billflow.example.com` (config PUBLIC_URL). */
  appUrl: string;
}

const name = z.string().min(1).max(500);
const cents = z.number().int().safe();
const count = z.number().int().min(0).max(1_000_000);
const isoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD');
const instant = z.iso.datetime({ offset: true });
/** A link the caller made (a one-time confirmation link): web URLs only. */
const actionUrl = z.url({ protocol: /^https?$/ }).max(2000);
const approvalId = z.string().min(1).max(100);

const approvalUrl = (ctx: MailContext, id: string) =>
  new URL(`/approvals/${encodeURIComponent(id)}`, ctx.appUrl).toString();
const viewApproval = (ctx: MailContext, id: string) => ({
  label: 'View the approval',
  url: approvalUrl(ctx, id),
});
const linkNote = (expiresAt: string | undefined) =>
  `The button works once${expiresAt ? ` and until ${formatInstant(expiresAt)}` : ''}. Do not forward this e-mail: anyone with the link can confirm.`;

export const ApprovalAssignedData = z.object({
  approvalId,
  companyName: name,
  /** The manager's name, for the greeting; null: no greeting by name. */
  managerName: name.nullish(),
  billCount: count,
  amountCents: cents,
  expiresAt: instant.optional(),
});

function approvalAssigned(d: z.infer<typeof ApprovalAssignedData>, ctx: MailContext): MailContent {
  const amount = formatUsd(d.amountCents);
  const bills = plural(d.billCount, 'bill');
  return {
    subject: `New approval for ${d.companyName}: ${bills}, ${amount}`,
    preview: `${d.companyName} asks you to approve ${bills} (${amount}).`,
    heading: 'A new approval is waiting for you',
    paragraphs: [
      d.managerName ? `Hello ${d.managerName},` : 'Hello,',
      `${d.companyName} asks you to approve ${bills} totalling ${amount}.`,
    ],
    facts: [
      ['Company', d.companyName],
      ['Bills', String(d.billCount)],
      ['Amount', amount],
      ...(d.expiresAt ? [['Decide by', formatInstant(d.expiresAt)] as const] : []),
    ],
    button: { label: 'Review the approval', url: approvalUrl(ctx, d.approvalId) },
  };
}

export const BankUploadRequestedData = z.object({
  approvalId,
  companyName: name,
  fileName: name,
  entryCount: count,
  totalCents: cents,
  effectiveDate: isoDay,
  actionUrl,
  linkExpiresAt: instant.optional(),
  /** Vendors the file holds out, each named with why (bank details changed after approval). */
  heldOut: z.array(z.string().min(1).max(1000)).max(100).optional(),
});

function bankUploadRequested(d: z.infer<typeof BankUploadRequestedData>, ctx: MailContext): MailContent {
  const total = formatUsd(d.totalCents);
  return {
    subject: `NACHA file ready for the bank: ${d.companyName}, ${total}`,
    preview: `Upload ${d.fileName} to the bank, then confirm the upload.`,
    heading: 'The NACHA file is ready',
    paragraphs: [
      `The payment file for ${d.companyName} is ready. Upload it to the bank, then confirm the upload with the button below.`,
      ...(d.heldOut?.length
        ? [
            `This file does not pay every vendor approved. Held out: ${d.heldOut.join('; ')}. Their bills wait until someone approves the new bank details again on the approval and asks for a new file.`,
          ]
        : []),
    ],
    facts: [
      ['File', d.fileName],
      ['Entries', String(d.entryCount)],
      ['Total', total],
      ['Effective date', formatDay(d.effectiveDate)],
    ],
    button: { label: 'Confirm bank upload', url: d.actionUrl },
    link: viewApproval(ctx, d.approvalId),
    note: linkNote(d.linkExpiresAt),
  };
}

export const PaymentCompletionRequestedData = z.object({
  approvalId,
  companyName: name,
  fileName: name,
  totalCents: cents,
  effectiveDate: isoDay,
  actionUrl,
  linkExpiresAt: instant.optional(),
});

function paymentCompletionRequested(
  d: z.infer<typeof PaymentCompletionRequestedData>,
  ctx: MailContext,
): MailContent {
  const total = formatUsd(d.totalCents);
  return {
    subject: `The bank took the file: confirm payment for ${d.companyName}`,
    preview: `${d.fileName} (${total}) is at the bank. Confirm once the payments are done.`,
    heading: 'The bank took the NACHA file',
    paragraphs: [
      `The bank accepted the payment file for ${d.companyName}. When the payments have gone out, confirm with the button below.`,
    ],
    facts: [
      ['File', d.fileName],
      ['Total', total],
      ['Effective date', formatDay(d.effectiveDate)],
    ],
    button: { label: 'Confirm payment completed', url: d.actionUrl },
    link: viewApproval(ctx, d.approvalId),
    note: linkNote(d.linkExpiresAt),
  };
}

/** Vendors listed in the message; more are summed up in one line. */
export const VENDORS_LISTED = 25;

export const PaymentCompletedData = z.object({
  approvalId,
  companyName: name,
  billCount: count,
  totalCents: cents,
  vendors: z
    .array(z.object({ name, amountCents: cents }))
    .max(10_000)
    .default([]),
  completedAt: instant,
  /** How recording the payment in QuickBooks went (its first run); absent: not known when sent. */
  quickbooks: z
    .object({
      status: z.enum(['SUCCESS', 'PARTIAL_SUCCESS', 'FAILED', 'SKIPPED', 'PENDING']),
      message: z.string().max(2000).nullable(),
    })
    .nullish(),
});

/** The books and the bank: what the paid notice says of the QuickBooks record. */
function quickbooksLine(q: z.infer<typeof PaymentCompletedData>['quickbooks']): string | null {
  if (!q) return null;
  switch (q.status) {
    case 'SUCCESS':
      return 'The bill payments are recorded in QuickBooks.';
    case 'PENDING':
      return 'The bill payments are still being recorded in QuickBooks: the approval shows when they are.';
    case 'PARTIAL_SUCCESS':
      return `Attention: the bill payments are only partly recorded in QuickBooks${q.message ? ` (${q.message})` : ''}. The books do not match the bank until someone retries the sync on the approval.`;
    default:
      return `Attention: the bill payments are not recorded in QuickBooks${q.message ? ` (${q.message})` : ''}. The books do not match the bank until someone retries the sync on the approval.`;
  }
}

function paymentCompleted(d: z.infer<typeof PaymentCompletedData>, ctx: MailContext): MailContent {
  const total = formatUsd(d.totalCents);
  const bills = plural(d.billCount, 'bill');
  const shown = d.vendors.slice(0, VENDORS_LISTED);
  const rest = d.vendors.slice(VENDORS_LISTED);
  const restCents = rest.reduce((sum, v) => sum + v.amountCents, 0);
  return {
    subject: `Paid: ${d.companyName}, ${total}`,
    preview: `The approval for ${d.companyName} was paid: ${bills}, ${total}.`,
    heading: 'The approval was paid',
    paragraphs: [
      `The approval for ${d.companyName} was paid: ${bills}, ${total} in all.`,
      ...(quickbooksLine(d.quickbooks) ? [quickbooksLine(d.quickbooks)!] : []),
    ],
    facts: [
      ['Company', d.companyName],
      ['Bills', String(d.billCount)],
      ['Total paid', total],
      ['Completed', formatInstant(d.completedAt)],
      ...(d.quickbooks ? [['QuickBooks', QB_WORDS[d.quickbooks.status]] as [string, string]] : []),
    ],
    lines: {
      caption: 'Paid to',
      rows: [
        ...shown.map((v) => [v.name, formatUsd(v.amountCents)] as const),
        ...(rest.length
          ? [[`and ${plural(rest.length, 'more vendor')}`, formatUsd(restCents)] as const]
          : []),
      ],
    },
    link: viewApproval(ctx, d.approvalId),
  };
}

const QB_WORDS = {
  SUCCESS: 'Recorded',
  PENDING: 'Being recorded',
  PARTIAL_SUCCESS: 'Partly recorded',
  FAILED: 'Not recorded',
  SKIPPED: 'Not recorded',
} as const;

export const PaymentProblemData = z.object({
  approvalId,
  companyName: name,
  managerName: name.nullish(),
  /** The step that failed and why, in plain words (the approval's payment problem). */
  problem: z.string().min(1).max(2000),
  at: instant,
});

function paymentProblem(d: z.infer<typeof PaymentProblemData>, ctx: MailContext): MailContent {
  return {
    subject: `Payment problem: ${d.companyName}`,
    preview: `A step of the payment for ${d.companyName} failed: someone needs to look.`,
    heading: 'A payment step failed',
    paragraphs: [
      `${d.managerName ? `${d.managerName}, a` : 'A'} step of the payment for ${d.companyName} failed and will not go on by itself:`,
      d.problem,
      'Open the approval to see what happened and retry where a retry can help.',
    ],
    facts: [
      ['Company', d.companyName],
      ['Failed at', formatInstant(d.at)],
    ],
    link: viewApproval(ctx, d.approvalId),
  };
}

/** What a mail may hold of a bank number: a tail of at most four characters, never the number. */
const tail = z
  .string()
  .regex(/^[0-9A-Za-z-]{0,4}$/, 'a tail of at most 4 characters')
  .nullable();
const tails = z.object({ routing: tail, account: tail });
const ending = (t: string | null) => (t ? `ending ${t}` : 'number hidden');
const accountWords = (t: z.infer<typeof tails> | null) =>
  t ? `account ${ending(t.account)} (routing ${ending(t.routing)})` : 'none on record';

export const PaymentReturnedData = z.object({
  approvalId,
  companyName: name,
  /** The reader's name, for the greeting. */
  personName: name.nullish(),
  vendorName: name,
  amountCents: cents,
  accountLast4: tail,
  /** Nacha's return reason code (R01 …) and its words. */
  returnCode: z.string().regex(/^R\d{2}$/),
  description: z.string().min(1).max(500),
  /** The code says the account itself is wrong or closed: the vendor's banking is blocked until changed. */
  blocksBanking: z.boolean(),
  /** The document numbers (or ids) of the vendor's bills the entry paid. */
  bills: z.array(z.string().min(1).max(100)).max(1000),
  returnedAt: instant,
});

function paymentReturned(d: z.infer<typeof PaymentReturnedData>, ctx: MailContext): MailContent {
  const amount = formatUsd(d.amountCents);
  const bills = d.bills.length ? `${plural(d.bills.length, 'bill')} (${d.bills.join(', ')})` : 'its bills';
  return {
    subject: `Payment returned for ${d.companyName}: ${d.vendorName}, ${amount} (${d.returnCode})`,
    preview: `The bank returned the payment of ${amount} to ${d.vendorName}: ${d.returnCode} ${d.description}.`,
    heading: 'The bank returned a payment',
    paragraphs: [
      d.personName ? `Hello ${d.personName},` : 'Hello,',
      `The bank returned the payment of ${amount} to ${d.vendorName} for ${d.companyName}: ${d.returnCode}, ${d.description}. The vendor was not paid.`,
      `What happens next: ${bills} ${d.bills.length === 1 ? 'is' : 'are'} open again. Billflow voids the QuickBooks bill payments it recorded for them, and they can go into a new approval.`,
      d.blocksBanking
        ? `This code is about the account itself: ${d.vendorName}'s bank details are blocked for payments until someone changes them. Ask the vendor for its correct bank details before paying again.`
        : 'Check with the vendor before paying again: the same details may come back the same way.',
    ],
    facts: [
      ['Company', d.companyName],
      ['Vendor', d.vendorName],
      ['Amount', amount],
      ['Account', ending(d.accountLast4)],
      ['Return', `${d.returnCode} ${d.description}`],
      ['Returned', formatInstant(d.returnedAt)],
    ],
    link: viewApproval(ctx, d.approvalId),
  };
}

export const RemittanceAdviceData = z.object({
  /** The payer: the company whose file paid the vendor. */
  companyName: name,
  vendorName: name,
  amountCents: cents,
  effectiveDate: isoDay,
  accountLast4: tail,
  /** The entry's trace number, by which the vendor's bank finds the credit; null on older files. */
  traceNumber: z
    .string()
    .regex(/^\d{15}$/)
    .nullable(),
  /** What the entry paid for each bill, by its document number (or id); null: an older file's, not kept. */
  bills: z
    .array(z.object({ docNumber: z.string().min(1).max(100), amountCents: cents.nullable() }))
    .max(1000),
});

function remittanceAdvice(d: z.infer<typeof RemittanceAdviceData>): MailContent {
  const amount = formatUsd(d.amountCents);
  const day = formatDay(d.effectiveDate);
  return {
    subject: `Payment from ${d.companyName}: ${amount}, effective ${day}`,
    preview: `${d.companyName} is paying ${d.vendorName} ${amount} by ACH (${plural(d.bills.length, 'bill')}).`,
    heading: 'Remittance advice',
    paragraphs: [
      `${d.companyName} sent ${d.vendorName} a payment of ${amount} by ACH to the account ${ending(d.accountLast4)}, effective ${day}.`,
      'The bills it pays are below. If it has not reached the account a few banking days after that date, give your bank the trace number.',
    ],
    facts: [
      ['Payer', d.companyName],
      ['Amount', amount],
      ['Effective date', day],
      ['Account', ending(d.accountLast4)],
      ['Trace number', d.traceNumber ?? 'not on record'],
    ],
    lines: {
      caption: 'Bills paid',
      rows: d.bills.map(
        (b) =>
          [
            `Bill ${b.docNumber}`,
            b.amountCents === null ? 'not itemised' : formatUsd(b.amountCents),
          ] as const,
      ),
    },
  };
}

export const VendorBankingChangeNoticeData = z.object({
  companyName: name,
  vendorName: name,
  /** The bank details before the change (tails); null: there were none. */
  previous: tails.nullable(),
  next: tails,
  accountType: z.enum(['checking', 'savings']),
  /** The person who made it, or "a bank's notification of change". */
  madeBy: name,
  madeAt: instant,
  /** The "This was not me" page. */
  actionUrl,
  linkExpiresAt: instant,
});

function vendorBankingChangeNotice(d: z.infer<typeof VendorBankingChangeNoticeData>): MailContent {
  return {
    subject: `Your bank details with ${d.companyName} were changed`,
    preview: `${d.madeBy} changed the bank account ${d.companyName} pays ${d.vendorName}. Not you? Tell us.`,
    heading: 'Your bank details were changed',
    paragraphs: [
      `${d.madeBy} changed the bank account ${d.companyName} pays ${d.vendorName} into. A change like this is checked by someone other than the person who made it, or confirmed by you, before any payment goes to the new account.`,
      'If you did not ask for this change, press the button below: the change is stopped and the company is alerted at once. If you did, there is nothing to do.',
    ],
    facts: [
      ['Company', d.companyName],
      ['Vendor', d.vendorName],
      ['Before', accountWords(d.previous)],
      ['After', `${accountWords(d.next)}, ${d.accountType}`],
      ['Changed by', d.madeBy],
      ['When', formatInstant(d.madeAt)],
    ],
    button: { label: 'This was not me', url: d.actionUrl },
    note: `The button works until ${formatInstant(d.linkExpiresAt)}. This e-mail went to the address on record before the change.`,
  };
}

export const VendorBankingChangeFrozenData = z.object({
  companyName: name,
  vendorName: name,
  vendorId: z.number().int().positive(),
  previous: tails.nullable(),
  next: tails,
  madeBy: name,
  madeAt: instant,
  frozenAt: instant,
});

function vendorBankingChangeFrozen(
  d: z.infer<typeof VendorBankingChangeFrozenData>,
  ctx: MailContext,
): MailContent {
  return {
    subject: `Alert: ${d.vendorName} (${d.companyName}) says a bank details change was not theirs`,
    preview: `The change of ${d.vendorName}'s bank account is frozen: reject it and check who made it.`,
    heading: 'A bank details change was reported as not the vendor’s',
    paragraphs: [
      `The contact on record of ${d.vendorName} (${d.companyName}) pressed "This was not me" on the notice of a change of its bank account. The change is frozen: it can only be rejected.`,
      `The change was made by ${d.madeBy}. Reject it with a reason on the vendor's page, and find out how it was made.`,
    ],
    facts: [
      ['Company', d.companyName],
      ['Vendor', d.vendorName],
      ['Before', accountWords(d.previous)],
      ['Change', accountWords(d.next)],
      ['Made by', d.madeBy],
      ['Made', formatInstant(d.madeAt)],
      ['Reported', formatInstant(d.frozenAt)],
    ],
    button: { label: 'Open the vendor', url: new URL(`/vendors/${d.vendorId}`, ctx.appUrl).toString() },
  };
}

export const VendorMicroDepositsData = z.object({
  companyName: name,
  vendorName: name,
  next: tails,
  /** The credits' effective entry date: they reach the account from that banking day. */
  effectiveDate: isoDay,
  tries: z.number().int().min(1).max(10),
  actionUrl,
  linkExpiresAt: instant,
});

function vendorMicroDeposits(d: z.infer<typeof VendorMicroDepositsData>): MailContent {
  return {
    subject: `Confirm your new bank account with ${d.companyName}`,
    preview: `Two small deposits are on their way to ${accountWords(d.next)}. Enter them to confirm the account.`,
    heading: 'Confirm your new bank account',
    paragraphs: [
      `${d.companyName} sent two small deposits (under $1.00 each) to the new bank ${accountWords(d.next)} of ${d.vendorName}. They reach the account from ${formatDay(d.effectiveDate)}.`,
      `When they show on your statement, press the button below and enter both amounts. The account is then confirmed and payments may go to it. After ${plural(d.tries, 'wrong try', 'wrong tries')} the check locks.`,
      'If you did not ask for a new bank account, do not enter anything: tell the company.',
    ],
    facts: [
      ['Company', d.companyName],
      ['Vendor', d.vendorName],
      ['New account', accountWords(d.next)],
      ['Deposits from', formatDay(d.effectiveDate)],
    ],
    button: { label: 'Enter the amounts', url: d.actionUrl },
    note: `The button works until ${formatInstant(d.linkExpiresAt)}. Do not forward this e-mail.`,
  };
}

function template<S extends z.ZodType>(
  schema: S,
  content: (data: z.output<S>, ctx: MailContext) => MailContent,
) {
  return {
    schema,
    /** Checks the data against the contract (throws a ZodError), then renders. */
    render: async (data: z.input<S>, ctx: MailContext): Promise<RenderedMail> =>
      renderMail(content(schema.parse(data), ctx)),
  };
}

export const mailTemplates = {
  'approval-assigned': template(ApprovalAssignedData, approvalAssigned),
  'bank-upload-requested': template(BankUploadRequestedData, bankUploadRequested),
  'payment-completion-requested': template(PaymentCompletionRequestedData, paymentCompletionRequested),
  'payment-completed': template(PaymentCompletedData, paymentCompleted),
  'payment-problem': template(PaymentProblemData, paymentProblem),
  'payment-returned': template(PaymentReturnedData, paymentReturned),
  'remittance-advice': template(RemittanceAdviceData, remittanceAdvice),
  'vendor-banking-change-notice': template(VendorBankingChangeNoticeData, vendorBankingChangeNotice),
  'vendor-banking-change-frozen': template(VendorBankingChangeFrozenData, vendorBankingChangeFrozen),
  'vendor-micro-deposits': template(VendorMicroDepositsData, vendorMicroDeposits),
};

export type MailTemplateName = keyof typeof mailTemplates;
/** The data a template takes, as its caller writes it. */
export type MailTemplateData<T extends MailTemplateName> = Parameters<(typeof mailTemplates)[T]['render']>[0];

export const isMailTemplate = (name: string): name is MailTemplateName => Object.hasOwn(mailTemplates, name);

/** Renders a template by name. */
export function renderTemplate<T extends MailTemplateName>(
  name: T,
  data: MailTemplateData<T>,
  ctx: MailContext,
): Promise<RenderedMail> {
  return (mailTemplates[name].render as (d: unknown, c: MailContext) => Promise<RenderedMail>)(data, ctx);
}

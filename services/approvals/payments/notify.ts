// The payment e-mails, as mails to queue: the manager hears of a new approval, the manager and the
// recipients get the links when the file is ready and when the bank took it, and everyone concerned
// hears of the payment. Each mail's key is the job's id and the recipient's place, so an event's job
// run again queues the same mails, which the mail queue sends once (workers/mail/mail.ts).
import type { ApprovalEvent } from '../../../schema/approvals/events.js';
import type { LinkAction } from '../../../schema/approvals/payment-events.js';
import type { CommandContext } from '../../app/command-handler.js';
import type { AppServices } from '../../app/context.js';
import type { MailTemplateData, MailTemplateName } from '../../mail/templates.js';
import {
  companyName,
  issueLinks,
  latestFile,
  loadApproval,
  managerPerson,
  type Person,
  stakeholders,
  userPerson,
} from './links.js';
import { PAYMENT_JOB_WORDS } from './payment-history.js';
import { billsOfReturn, returnedEntry } from './returns.js';

export interface PlannedMail<T extends MailTemplateName = MailTemplateName> {
  key: string;
  template: T;
  to: { subject: string; address: string; name: string | null };
  data: MailTemplateData<T>;
}

const toOf = (p: Person) => ({ subject: p.subject, address: p.address, name: p.name });
const cents = (amount: number) => Math.round(amount * 100);
/** BullMQ ids and mail keys keep to [A-Za-z0-9_-]. */
const mailKey = (jobId: string, index: number) => `${jobId}_${index}`.replace(/[^A-Za-z0-9_-]/g, '_');

/** ApprovalCreated: the assigned manager is asked to review (none assigned: no mail). */
export async function managerMail(
  app: AppServices,
  approvalId: string,
  jobId: string,
): Promise<PlannedMail[]> {
  const { state } = await loadApproval(app, approvalId);
  if (!state.exists || state.deleted || state.status !== 'PENDING') return [];
  const manager = await managerPerson(app, state.managerId);
  if (!manager) return [];
  const mail: PlannedMail<'approval-assigned'> = {
    key: mailKey(jobId, 0),
    template: 'approval-assigned',
    to: toOf(manager),
    data: {
      approvalId,
      companyName: await companyName(app, state.companyId!),
      managerName: manager.name,
      billCount: state.bills.length,
      amountCents: state.bills.reduce((s, b) => s + cents(b.TotalAmt), 0),
      ...(state.expiresAt ? { expiresAt: state.expiresAt } : {}),
    },
  };
  return [mail];
}

/**
 * NachaFileGenerated (bank-uploaded) or BankUploadConfirmed (payment-completed): a link per
 * recipient, and its mail. A file regenerated since the event that asked is the newer event's to
 * mail: `fileVersion` older than the approval's gives nothing.
 */
export async function linkMails(
  app: AppServices,
  input: { approvalId: string; action: LinkAction; fileVersion?: number; jobId: string },
  ctx: CommandContext,
): Promise<PlannedMail[]> {
  const { state, events } = await loadApproval(app, input.approvalId);
  if (!state.exists) return [];
  if (input.fileVersion !== undefined && input.fileVersion !== state.payment.nachaVersion) return [];
  const file = latestFile(events);
  if (!file) return [];
  const links = await issueLinks(app, input, ctx);
  const company = await companyName(app, state.companyId!);
  return links.map((l): PlannedMail => {
    const common = {
      approvalId: input.approvalId,
      companyName: company,
      fileName: file.fileName,
      totalCents: file.totalCreditCents,
      effectiveDate: file.effectiveDate,
      actionUrl: l.url,
      linkExpiresAt: l.expiresAt,
    };
    const key = mailKey(input.jobId, l.index);
    return input.action === 'bank-uploaded'
      ? {
          key,
          template: 'bank-upload-requested',
          to: toOf(l.person),
          data: {
            ...common,
            entryCount: file.entryCount,
            // Vendors whose banking is not the banking approved are held out, named (decision 0033).
            ...(file.heldVendors?.length ? { heldOut: file.heldVendors.map((h) => h.message) } : {}),
          },
        }
      : { key, template: 'payment-completion-requested', to: toOf(l.person), data: common };
  });
}

/** PaymentCompleted: the manager, the recipients, the creator and the approvers hear it was paid. */
export async function completedMails(
  app: AppServices,
  approvalId: string,
  jobId: string,
): Promise<PlannedMail[]> {
  const { state, events } = await loadApproval(app, approvalId);
  if (!state.exists || state.status !== 'PAYMENT_COMPLETED') return [];
  const paid = [...events].reverse().find((e) => e.type === 'PaymentCompleted');
  const file = latestFile(events);
  const approved = new Set(state.approvedBillIds);
  const bills = state.bills.filter((b) => approved.has(b.Id));
  const company = await companyName(app, state.companyId!);
  const people = await stakeholders(app, state);
  return people.map(
    (p, index): PlannedMail<'payment-completed'> => ({
      key: mailKey(jobId, index),
      template: 'payment-completed',
      to: toOf(p),
      data: {
        approvalId,
        companyName: company,
        billCount: bills.length,
        totalCents: file ? file.totalCreditCents : bills.reduce((s, b) => s + cents(b.Balance), 0),
        vendors: file ? file.vendors.map((v) => ({ name: v.name, amountCents: v.amountCents })) : [],
        completedAt: paid?.data.at ?? new Date().toISOString(),
        quickbooks: quickbooksOutcome(events),
      },
    }),
  );
}

/** How the first QuickBooks run after the payment ended, for the paid notice (PENDING: not yet). */
function quickbooksOutcome(events: ApprovalEvent[]) {
  const finished = events.find((e) => e.type === 'QbPaymentSyncFinished');
  if (finished?.type === 'QbPaymentSyncFinished')
    return { status: finished.data.status, message: finished.data.message };
  return { status: 'PENDING' as const, message: null };
}

/** PaymentJobFailed: the manager (else the approver, else the creator) hears what failed and why. */
export async function paymentProblemMail(
  app: AppServices,
  approvalId: string,
  failedJobId: string,
  jobId: string,
): Promise<PlannedMail[]> {
  const { state } = await loadApproval(app, approvalId);
  const problem = state.payment.jobProblem;
  // Only while the failure stands: a step that went through since needs no alarm.
  if (!state.exists || !problem || problem.jobId !== failedJobId) return [];
  const person =
    (await managerPerson(app, state.managerId)) ??
    (await userPerson(app, state.approvedBy)) ??
    (await userPerson(app, state.createdBy));
  if (!person) return [];
  const mail: PlannedMail<'payment-problem'> = {
    key: mailKey(jobId, 0),
    template: 'payment-problem',
    to: toOf(person),
    data: {
      approvalId,
      companyName: await companyName(app, state.companyId!),
      managerName: person.name,
      problem: `${PAYMENT_JOB_WORDS[problem.job]} failed: ${problem.reason}`,
      at: problem.at,
    },
  };
  return [mail];
}

/**
 * The payments module's PaymentEntryReturned: the manager and the creator hear that the bank returned
 * one vendor's payment, with the code and what happens next (the same person once when they are both).
 */
export async function returnedMails(
  app: AppServices,
  approvalId: string,
  traceNumber: string,
  jobId: string,
): Promise<PlannedMail[]> {
  const [{ state }, { returned: d }] = await Promise.all([
    loadApproval(app, approvalId),
    returnedEntry(app, traceNumber),
  ]);
  if (!state.exists || !d || d.approvalId !== approvalId) return [];
  const docNumbers = new Map(state.bills.map((b) => [b.Id, b.DocNumber || null]));
  const people: Person[] = [];
  for (const p of [await managerPerson(app, state.managerId), await userPerson(app, state.createdBy)])
    if (p && !people.some((q) => q.address.toLowerCase() === p.address.toLowerCase())) people.push(p);
  const company = await companyName(app, state.companyId!);
  return people.map(
    (p, index): PlannedMail<'payment-returned'> => ({
      key: mailKey(jobId, index),
      template: 'payment-returned',
      to: toOf(p),
      data: {
        approvalId,
        companyName: company,
        personName: p.name,
        vendorName: d.vendorName,
        amountCents: d.amountCents,
        accountLast4: d.accountLast4.slice(-4),
        returnCode: d.returnCode,
        description: d.description,
        blocksBanking: d.action === 'block-account',
        bills: billsOfReturn(d, state.payment.files).map((id) => docNumbers.get(id) ?? id),
        returnedAt: d.at,
      },
    }),
  );
}

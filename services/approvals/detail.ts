// GET /approvals/{id}: the row with its bills as snapshotted (cleaned on the way out), the vendors'
// contacts opened from the log, their ACH status from the vendors read model (masked), and the
// recipients.
import type { BillSnapshot, VendorContact } from '../../schema/approvals/events.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { cleanQbText } from '../quickbooks/clean.js';
import { maskTail } from '../shared/masking.js';
import { type ApprovalState, approvalDecider, approvalStreamId } from './approval-decider.js';
import { bankingReviewOf } from './banking-review.js';
import { nachaDateOf, nachaFilesOf } from './payments/payment-rows.js';
import { paymentPrerequisites } from './payments/prerequisites.js';
import {
  type AchStatus,
  type ApprovalBill,
  type ApprovalDto,
  parseApprovalId,
  requireRow,
  toDtos,
} from './rows.js';

const text = (v: unknown, max = 500) => cleanQbText(v, max);

/** The statuses before the bank has the file, when what the payment needs still matters. */
const BEFORE_THE_BANK: readonly string[] = ['PENDING', 'APPROVED', 'NACHA_PENDING', 'NACHA_GENERATED'];

/**
 * What the bank did with the approval's entries after the file (the payments module's read model):
 * the entries it returned or corrected, and whether every vendor of the file at the bank came back.
 */
async function bankEntriesOf(app: AppServices, approvalId: string, asOf: Date | null) {
  const recorded = await app.db
    .selectFrom('payment_entries')
    .selectAll()
    .where('approval_id', '=', approvalId)
    .orderBy('trace_number')
    .execute();
  // At a past point (time travel): what the bank had sent back by then, nothing after.
  const all = asOf
    ? recorded.map((r) => ({
        ...r,
        ...(r.returned_at && r.returned_at > asOf
          ? { status: 'sent' as const, return_code: null, return_description: null, returned_at: null }
          : {}),
        ...(r.correction_received_at && r.correction_received_at > asOf
          ? {
              change_code: null,
              change_description: null,
              corrected_account_last4: null,
              correction_due_by: null,
            }
          : {}),
      }))
    : recorded;
  const rows = all.filter((r) => r.status === 'returned' || r.change_code !== null);
  const bankEntries = rows.map((r) => ({
    traceNumber: r.trace_number,
    qbVendorId: r.qb_vendor_id,
    vendorName: r.vendor_name,
    amountCents: Number(r.amount_cents),
    accountLast4: r.account_last4,
    fileName: r.file_name,
    status: r.status,
    returnCode: r.return_code,
    returnDescription: r.return_description,
    returnedAt: r.returned_at?.toISOString() ?? null,
    changeCode: r.change_code,
    changeDescription: r.change_description,
    correctedAccountLast4: r.corrected_account_last4,
    correctionDueBy: r.correction_due_by,
  }));
  // The file a return came back from is the one at the bank: every one of its entries returned or not.
  const returnedFiles = new Set(all.filter((r) => r.status === 'returned').map((r) => r.file_id));
  const ofThose = all.filter((r) => returnedFiles.has(r.file_id));
  const bankPaymentState =
    returnedFiles.size === 0
      ? null
      : ofThose.every((r) => r.status === 'returned')
        ? ('RETURNED' as const)
        : ('PARTLY_RETURNED' as const);
  return { bankEntries, bankPaymentState };
}

/**
 * The approval's file on its way to the bank over SFTP (the payments module's read model, one row per
 * approval, its latest file scheduled); null when the company sends its files by hand.
 */
async function bankDeliveryOf(app: AppServices, approvalId: string, asOf: Date | null) {
  const r = await app.db
    .selectFrom('ach_deliveries')
    .selectAll()
    .where('approval_id', '=', approvalId)
    .executeTakeFirst();
  // The read model keeps the delivery's latest state only: at a past point before it, none is shown.
  if (!r || (asOf && r.updated_at > asOf)) return null;
  return {
    status: r.status,
    fileName: r.file_name,
    version: r.version,
    windowAt: r.window_at?.toISOString() ?? null,
    deliveredAt: r.delivered_at?.toISOString() ?? null,
    size: r.size === null ? null : Number(r.size),
    sha256: r.sha256,
    foundThere: r.found_there,
    bankAnswer: r.bank_answer,
    bankText: r.bank_text,
    failure: r.failure,
  };
}

/**
 * How many other approvals' batches the approval's current file carries (decision 0040: a file's
 * name is unique within its company, the day and modifier in it); null without a file.
 */
async function sharedWith(app: AppServices, companyId: number, approvalId: string, fileName: string | null) {
  if (!fileName) return null;
  const r = await app.db
    .selectFrom('approvals')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('company_id', '=', companyId)
    .where('nacha_file_name', '=', fileName)
    .where('id', '!=', approvalId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The ACH status of a company's QuickBooks vendors, from the vendors read model (masked). */
export async function achStatuses(app: AppServices, companyId: number, qbVendorIds: string[]) {
  const out = new Map<string, AchStatus>();
  if (qbVendorIds.length === 0) return out;
  const rows = await app.db
    .selectFrom('vendors')
    .select([
      'id',
      'qb_vendor_id',
      'has_banking',
      'bank_name',
      'account_type',
      'routing_last4',
      'account_last4',
    ])
    .where('company_id', '=', companyId)
    .where('qb_vendor_id', 'in', [...new Set(qbVendorIds)])
    .execute();
  for (const r of rows)
    out.set(r.qb_vendor_id, {
      hasBankingInfo: r.has_banking,
      vendorId: r.id,
      bankName: r.bank_name,
      accountType: r.account_type,
      routingNumber: maskTail(r.routing_last4, 9),
      accountNumber: maskTail(r.account_last4, 8),
    });
  return out;
}

const NO_ACH: AchStatus = {
  hasBankingInfo: false,
  vendorId: null,
  bankName: null,
  accountType: null,
  routingNumber: null,
  accountNumber: null,
};

/** GET /approvals/{id}: the row, with the bills (vendor contacts opened from the log) and recipients. */
export async function getApproval(app: AppServices, actor: Actor | null, id: unknown): Promise<ApprovalDto> {
  authorize(actor, 'approvals.read');
  const approvalId = parseApprovalId(id);
  const row = await requireRow(app, actor, approvalId);
  const { state } = await app.commands.load(approvalDecider, approvalStreamId(approvalId));
  return withDetail(app, (await toDtos(app, [row]))[0], state);
}

/**
 * A snapshot's text as the screens show it. Snapshots taken before QuickBooks text was cleaned at
 * the door may still hold controls or direction overrides: they are cleaned on the way
 * out too, so no stored event shows "INV-\u202Egpj.exe" as "INV-exe.jpg".
 */
function cleanedSnapshot(b: BillSnapshot): BillSnapshot {
  return {
    ...b,
    DocNumber: text(b.DocNumber, 40),
    VendorRef: { value: b.VendorRef.value, name: text(b.VendorRef.name, 255) },
    Line: b.Line.map((l) => ({
      ...l,
      Description: text(l.Description, 1000),
      ItemName: text(l.ItemName, 255),
      AccountName: text(l.AccountName, 255),
    })),
    InvoiceFileName: text(b.InvoiceFileName, 255),
  };
}

export async function withDetail(
  app: AppServices,
  dto: ApprovalDto,
  state: ApprovalState,
  /** A past point (time travel): the bank's facts recorded after it are left out. */
  asOf: Date | null = null,
): Promise<ApprovalDto> {
  const contacts = new Map<string, VendorContact>((state.vendorContacts ?? []).map((c) => [c.qbVendorId, c]));
  const [ach, review] = await Promise.all([
    achStatuses(
      app,
      dto.companyId,
      state.bills.map((b) => b.VendorRef.value),
    ),
    bankingReviewOf(app, dto.status, state),
  ]);
  const bills: ApprovalBill[] = state.bills.map((b) => ({
    ...cleanedSnapshot(b),
    VendorInfo: {
      CompanyName: text(b.VendorInfo.CompanyName, 255),
      Email: contacts.get(b.VendorRef.value)?.email ?? null,
      Phone: contacts.get(b.VendorRef.value)?.phone ?? null,
    },
    invoiceAvailable: b.AttachableId !== null,
    achStatus: ach.get(b.VendorRef.value) ?? NO_ACH,
  }));
  const approved = new Set(dto.approvedBillIdList);
  return {
    ...dto,
    ...review,
    billsParsed: bills,
    approvedBillsParsed: bills.filter((b) => approved.has(b.Id)),
    recipients: state.recipients ?? [],
    nachaFiles: nachaFilesOf(dto.id, state),
    nachaFileSharedWith: await sharedWith(app, dto.companyId, dto.id, dto.nachaFileName),
    ...nachaDateOf(state),
    ...(await bankEntriesOf(app, dto.id, asOf)),
    bankDelivery: await bankDeliveryOf(app, dto.id, asOf),
    // Until the bank has the file: what its payment still needs.
    paymentPrerequisites: BEFORE_THE_BANK.includes(dto.status)
      ? await paymentPrerequisites(app, dto.companyId, state.bills, { live: true })
      : [],
  };
}

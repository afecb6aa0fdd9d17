// Remittance advice: when a file goes to the bank (the approval's BankUploadConfirmed, whether the
// system delivered it over SFTP or a person confirmed the upload), each vendor it pays is told what it
// was paid: the payer, the amount, the effective date, the bills with what the file paid for each,
// the account's last four digits and the entry's trace number. Everything is read from the
// approval's own events (the file version's NachaFileGenerated, the bill snapshot and the vendors'
// contacts of ApprovalCreated, opened by the store) and two read models: the company's name, and
// whether each vendor still wants the advice. Nothing here sends: the worker queues the mails
// (workers/payments/remittance.ts), one per approval, file version and vendor.
import { approvalEvents } from '../../schema/approvals/events.js';
import { vendorSubject } from '../../schema/vendors/events.js';
import type { AppServices } from '../app/context.js';
import { eventDecoder } from '../shared/decider.js';

const decode = eventDecoder(approvalEvents);

/** One remittance advice to queue: its mail key, its recipient and the template's data. */
export interface PlannedRemittance {
  key: string;
  template: 'remittance-advice';
  to: { subject: string; address: string; name: string | null };
  data: {
    companyName: string;
    vendorName: string;
    amountCents: number;
    effectiveDate: string;
    accountLast4: string | null;
    traceNumber: string | null;
    bills: { docNumber: string; amountCents: number | null }[];
  };
}

export interface RemittancePlan {
  mails: PlannedRemittance[];
  /** Vendors of the file with no e-mail on record in the approval: nobody to tell. */
  withoutEmail: number;
  /** Vendors whose remittance advice staff turned off. */
  turnedOff: number;
  /** Vendors no longer in Billflow (forgotten since the file was made). */
  gone: number;
}

/** The mail key of one vendor's advice for one file version: the mail queue sends a key once. */
export const remittanceKey = (approvalId: string, fileVersion: number, qbVendorId: string) =>
  `remittance_${approvalId}_v${fileVersion}_${qbVendorId}`.replace(/[^A-Za-z0-9_-]/g, '-');

/** The account tail a mail may show: at most the last four characters, never more. */
const lastFour = (tail: string) => (tail ? tail.slice(-4) : null);

/**
 * The advice each vendor of the approval's file `fileVersion` gets. An approval with no such file
 * (a version the bank never had) plans nothing.
 */
export async function remittancePlan(
  app: Pick<AppServices, 'store' | 'db'>,
  approvalId: string,
  fileVersion: number,
): Promise<RemittancePlan> {
  const plan: RemittancePlan = { mails: [], withoutEmail: 0, turnedOff: 0, gone: 0 };
  const { events } = await app.store.readStream(`approval-${approvalId}`);
  let created: Extract<ReturnType<typeof decode>, { type: 'ApprovalCreated' }>['data'] | null = null;
  let file: Extract<ReturnType<typeof decode>, { type: 'NachaFileGenerated' }>['data'] | null = null;
  for (const stored of events) {
    if (stored.type === 'ApprovalCreated') {
      const e = decode(stored, { sealed: 'absent' });
      if (e.type === 'ApprovalCreated') created = e.data;
    } else if (stored.type === 'NachaFileGenerated') {
      const e = decode(stored);
      if (e.type === 'NachaFileGenerated' && e.data.version === fileVersion) file = e.data;
    }
  }
  if (!created || !file || file.vendors.length === 0) return plan;
  const company = await app.db
    .selectFrom('companies')
    .select('name')
    .where('id', '=', file.companyId)
    .executeTakeFirst();
  const vendorRows = await app.db
    .selectFrom('vendors')
    .select(['id', 'qb_vendor_id', 'remittance_advice'])
    .where('company_id', '=', file.companyId)
    .where(
      'qb_vendor_id',
      'in',
      file.vendors.map((v) => v.qbVendorId),
    )
    .execute();
  const rows = new Map(vendorRows.map((r) => [r.qb_vendor_id, r]));
  // A company forgotten since: its contacts are erased with its key, and nobody is mailed.
  const contacts = new Map((created.vendorContacts ?? []).map((c) => [c.qbVendorId, c.email]));
  const docNumbers = new Map(created.bills.map((b) => [b.Id, b.DocNumber || b.Id]));
  for (const v of file.vendors) {
    const row = rows.get(v.qbVendorId);
    if (!row) {
      plan.gone++;
      continue;
    }
    if (!row.remittance_advice) {
      plan.turnedOff++;
      continue;
    }
    const address = contacts.get(v.qbVendorId)?.trim();
    if (!address) {
      plan.withoutEmail++;
      continue;
    }
    // What the file paid per bill; a file made before that was kept names its bills only.
    const bills = v.bills
      ? v.bills.map((b) => ({ docNumber: docNumbers.get(b.billId) ?? b.billId, amountCents: b.amountCents }))
      : v.billIds.map((id) => ({ docNumber: docNumbers.get(id) ?? id, amountCents: null }));
    plan.mails.push({
      key: remittanceKey(approvalId, fileVersion, v.qbVendorId),
      template: 'remittance-advice',
      // The vendor's own key: forgetting the vendor drops an advice still queued.
      to: { subject: vendorSubject(row.id), address, name: v.name },
      data: {
        companyName: company?.name ?? 'Your customer',
        vendorName: v.name,
        amountCents: v.amountCents,
        effectiveDate: file.effectiveDate,
        accountLast4: lastFour(v.accountLast4),
        traceNumber: v.traceNumber ?? null,
        bills,
      },
    });
  }
  return plan;
}

// The bank's return of an entry, as the approval records it (composed into payment-decider.ts): the
// vendor of that entry was not paid, so its bills are the approval's no longer and their QuickBooks
// payments are voided. The approval's status stays the milestone it reached; the return is a fact
// beside it. Pure: the entry, the document numbers and the time come on the command.
import type { PaymentEvent } from '../../../schema/approvals/payment-events.js';
import type { PaymentsEvent } from '../../../schema/payments/events.js';
import { DomainError } from '../../shared/domain-errors.js';
import type { PaymentSlice } from './payment-state.js';

/** The payments module's record of a returned entry, as the approval reads it. */
export type ReturnedEntry = Extract<PaymentsEvent, { type: 'PaymentEntryReturned' }>['data'];

export type ReturnCommand =
  /** The bank returned the entry of one vendor; `docNumbers`: the bills' document numbers, for the record. */
  | {
      type: 'RecordPaymentReturn';
      entry: ReturnedEntry;
      docNumbers: Readonly<Record<string, string | null>>;
      now: string;
    }
  /** The QuickBooks payments of a returned entry's bills are voided (none: nothing had been recorded). */
  | {
      type: 'RecordQbVoids';
      traceNumber: string;
      bills: Array<{ billId: string; docNumber: string | null; billPaymentId: string; amount: number }>;
      now: string;
    };

export function decideReturn(command: ReturnCommand, state: PaymentSlice): PaymentEvent[] {
  const { approvalId, companyId, payment } = state;
  const at = command.now;
  switch (command.type) {
    case 'RecordPaymentReturn': {
      const e = command.entry;
      if (e.approvalId !== approvalId)
        throw new DomainError('VALIDATION', `The returned entry ${e.traceNumber} is another approval's`);
      if (payment.returns[e.traceNumber]) return [];
      // The file the entry was in: the one the bank took (its name on the entry, else the uploaded one).
      const file =
        payment.files.find((f) => f.fileName === e.fileName) ??
        payment.files.find((f) => f.version === payment.uploadedVersion);
      if (!file) throw new DomainError('VALIDATION', `No file of this approval is named ${e.fileName}`);
      const vendorBills = new Set(file.vendors.find((v) => v.qbVendorId === e.qbVendorId)?.billIds ?? []);
      const bills = file.bills
        .filter((b) => vendorBills.has(b.billId))
        .map((b) => ({
          billId: b.billId,
          docNumber: command.docNumbers[b.billId] ?? null,
          // A file made before per-bill amounts were kept: a vendor's one bill took the whole entry.
          amountCents: b.amountCents ?? (vendorBills.size === 1 ? e.amountCents : 0),
        }));
      const returnedOfFile = Object.values(payment.returns).filter(
        (r) => r.fileName === file.fileName,
      ).length;
      const entries = file.vendors.length;
      return [
        {
          type: 'PaymentReturnRecorded',
          data: {
            approvalId,
            companyId,
            traceNumber: e.traceNumber,
            qbVendorId: e.qbVendorId,
            vendorName: e.vendorName,
            amountCents: e.amountCents,
            accountLast4: e.accountLast4,
            fileName: file.fileName,
            returnCode: e.returnCode,
            description: e.description,
            action: e.action,
            bills,
            bankPaymentState: returnedOfFile + 1 >= entries ? 'RETURNED' : 'PARTLY_RETURNED',
            returnedAt: e.at,
            at,
          },
        },
      ];
    }
    case 'RecordQbVoids': {
      const r = payment.returns[command.traceNumber];
      if (!r)
        throw new DomainError('VALIDATION', `No return of entry ${command.traceNumber} on this approval`);
      if (r.voided || command.bills.length === 0) return [];
      const foreign = command.bills.find((b) => !r.billIds.includes(b.billId));
      if (foreign)
        throw new DomainError('VALIDATION', `Bill ${foreign.billId} is not one of the returned entry's`);
      return [
        {
          type: 'QbBillPaymentVoided',
          data: {
            approvalId,
            companyId,
            traceNumber: r.traceNumber,
            vendorName: r.vendorName,
            bills: command.bills,
            at,
          },
        },
      ];
    }
  }
}

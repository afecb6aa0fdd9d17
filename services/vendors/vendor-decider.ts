// The vendor aggregate as a decider (spec 2 §3, §4; issue 11): created and changed by syncs from
// QuickBooks, bank details set and cleared by staff, unmasks recorded. Pure: times come on the command.
import { type AccountType, shownTail, type VendorEvent, vendorSubject } from '../../schema/vendors/events.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';

export interface VendorFromQb {
  name: string;
  email: string | null;
  phone: string | null;
  active: boolean;
}

export interface Banking {
  routingNumber: string;
  accountNumber: string;
  accountType: AccountType;
  bankName: string | null;
}

export interface VendorState {
  exists: boolean;
  vendorId: number | null;
  companyId: number | null;
  qbVendorId: string | null;
  qb: VendorFromQb | null;
  banking: Banking | null;
  /** Forgotten: its sealed data is unreadable and nothing more happens to it. */
  forgotten: boolean;
}

export const initialState = (): VendorState => ({
  exists: false,
  vendorId: null,
  companyId: null,
  qbVendorId: null,
  qb: null,
  banking: null,
  forgotten: false,
});

export type VendorCommand =
  | {
      type: 'SyncVendor';
      /** The id a new vendor gets (allocated by the caller); ignored when the vendor exists. */
      vendorId: number;
      companyId: number;
      qbVendorId: string;
      vendor: VendorFromQb;
      now: string;
    }
  | ({ type: 'UpdateBanking'; source: 'form' | 'batch' | 'csv'; now: string } & Banking)
  | { type: 'ClearBanking'; now: string }
  | {
      type: 'RecordUnmask';
      byUserId: number;
      now: string;
      /** An ADMIN's CSV export with full numbers: which vendors it held (csv-export.ts). */
      export?: { companyId: number | null; includeInactive: boolean; vendors: number };
    }
  | { type: 'ForgetVendor'; now: string };

export function evolve(state: VendorState, event: VendorEvent): VendorState {
  switch (event.type) {
    case 'VendorCreated': {
      const { vendorId, companyId, qbVendorId, name, email, phone, active } = event.data;
      return { ...state, exists: true, vendorId, companyId, qbVendorId, qb: { name, email, phone, active } };
    }
    case 'VendorChangedInQuickBooks': {
      // Only what changed: applied to the vendor as created (a forgotten one keeps nothing).
      const { vendorId: _v, syncedAt: _s, ...changes } = event.data;
      return state.qb ? { ...state, qb: { ...state.qb, ...changes } } : state;
    }
    case 'VendorBankingUpdated': {
      const { routingNumber, accountNumber, accountType, bankName } = event.data;
      return { ...state, banking: { routingNumber, accountNumber, accountType, bankName } };
    }
    case 'VendorBankingCleared':
      return { ...state, banking: null };
    case 'VendorForgotten':
      return { ...state, qb: null, banking: null, forgotten: true };
    default:
      return state;
  }
}

const QB_FIELDS = ['name', 'email', 'phone', 'active'] as const;

export function decide(command: VendorCommand, state: VendorState): VendorEvent[] {
  if (command.type === 'SyncVendor') {
    // Forgotten in Billflow, still in QuickBooks: a sync does not bring it back.
    if (state.forgotten) return [];
    const { vendor, now } = command;
    if (!state.exists) {
      return [
        {
          type: 'VendorCreated',
          data: {
            vendorId: command.vendorId,
            companyId: command.companyId,
            qbVendorId: command.qbVendorId,
            ...vendor,
            syncedAt: now,
          },
        },
      ];
    }
    const changes: Partial<VendorFromQb> = {};
    for (const f of QB_FIELDS) if (vendor[f] !== state.qb?.[f]) Object.assign(changes, { [f]: vendor[f] });
    // Unchanged in QuickBooks: nothing to record (a second sync changes nothing).
    if (Object.keys(changes).length === 0) return [];
    return [
      { type: 'VendorChangedInQuickBooks', data: { vendorId: state.vendorId!, ...changes, syncedAt: now } },
    ];
  }
  if (!state.exists) throw new DomainError('NOT_FOUND', 'Vendor not found');
  const vendorId = state.vendorId!;
  if (command.type === 'ForgetVendor')
    return state.forgotten
      ? []
      : [{ type: 'VendorForgotten', data: { vendorId, subject: vendorSubject(vendorId), at: command.now } }];
  if (state.forgotten) throw new DomainError('NOT_FOUND', 'Vendor not found');
  switch (command.type) {
    case 'UpdateBanking': {
      const { routingNumber, accountNumber, accountType, bankName, source, now } = command;
      const b = state.banking;
      if (
        b &&
        b.routingNumber === routingNumber &&
        b.accountNumber === accountNumber &&
        b.accountType === accountType &&
        b.bankName === bankName
      )
        return [];
      return [
        {
          type: 'VendorBankingUpdated',
          data: {
            vendorId,
            routingNumber,
            accountNumber,
            routingLast4: shownTail(routingNumber),
            accountLast4: shownTail(accountNumber),
            accountType,
            bankName,
            source,
            at: now,
          },
        },
      ];
    }
    case 'ClearBanking':
      if (!state.banking) return [];
      return [{ type: 'VendorBankingCleared', data: { vendorId, at: command.now } }];
    case 'RecordUnmask':
      return [
        {
          type: 'VendorBankingUnmasked',
          data: {
            vendorId,
            byUserId: command.byUserId,
            at: command.now,
            ...(command.export ? { export: command.export } : {}),
          },
        },
      ];
  }
}

export const vendorStreamId = (companyId: number, qbVendorId: string) => `vendor-${companyId}-${qbVendorId}`;

export const vendorDecider = {
  initialState,
  evolve,
  decide,
  streamId: vendorStreamId,
} satisfies Decider<VendorState, VendorCommand, VendorEvent>;

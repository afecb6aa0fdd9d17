import { describe, it } from 'vitest';
import type { VendorEvent } from '../../schema/vendors/events.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { vendorDecider } from './vendor-decider.js';

const now = '2026-01-02T03:04:05.000Z';
const qb: { name: string; email: string | null; phone: string | null; active: boolean } = {
  name: 'Acme Paper LLC',
  email: 'ap@acme.example',
  phone: null,
  active: true,
};
const created: VendorEvent = {
  type: 'VendorCreated',
  data: { vendorId: 7, companyId: 2, qbVendorId: '55', ...qb, syncedAt: now },
};
const banking = {
  routingNumber: '021000021',
  accountNumber: '123456789',
  accountType: 'checking' as const,
  bankName: 'Chase',
};
const bankingSet: VendorEvent = {
  type: 'VendorBankingUpdated',
  data: { vendorId: 7, ...banking, routingLast4: '0021', accountLast4: '6789', source: 'form', at: now },
};
const sync = (vendor = qb) => ({
  type: 'SyncVendor' as const,
  vendorId: 99,
  companyId: 2,
  qbVendorId: '55',
  vendor,
  now,
});

describe('vendor decider', () => {
  const spec = deciderSpec(vendorDecider);

  it('creates a vendor the first time a sync sees it, with the id allocated for it', () => {
    spec
      .given([])
      .when({ ...sync(), vendorId: 7 })
      .then([created]);
  });

  it('records only what changed in QuickBooks, and nothing on a second identical sync', () => {
    spec.given([created]).when(sync()).then([]);
    spec
      .given([created])
      .when(sync({ ...qb, phone: '555-0100', active: false }))
      .then([
        {
          type: 'VendorChangedInQuickBooks',
          data: { vendorId: 7, phone: '555-0100', active: false, syncedAt: now },
        },
      ]);
  });

  it('sets bank details, skips an identical update, clears once', () => {
    spec
      .given([created])
      .when({ type: 'UpdateBanking', ...banking, source: 'form', now })
      .then([bankingSet]);
    spec
      .given([created, bankingSet])
      .when({ type: 'UpdateBanking', ...banking, source: 'csv', now })
      .then([]);
    spec
      .given([created, bankingSet])
      .when({ type: 'ClearBanking', now })
      .then([{ type: 'VendorBankingCleared', data: { vendorId: 7, at: now } }]);
    spec.given([created]).when({ type: 'ClearBanking', now }).then([]);
  });

  it('keeps in plain only a tail that leaves at least four characters of the account hidden', () => {
    const short = { ...banking, accountNumber: '12345' };
    spec
      .given([created])
      .when({ type: 'UpdateBanking', ...short, source: 'form', now })
      .then([
        {
          type: 'VendorBankingUpdated',
          data: { vendorId: 7, ...short, routingLast4: '0021', accountLast4: '5', source: 'form', at: now },
        },
      ]);
  });

  it('records every unmask with who', () => {
    spec
      .given([created, bankingSet])
      .when({ type: 'RecordUnmask', byUserId: 4, now })
      .then([{ type: 'VendorBankingUnmasked', data: { vendorId: 7, byUserId: 4, at: now } }]);
  });

  it('refuses banking and unmask for a vendor never synced', () => {
    spec
      .given([])
      .when({ type: 'UpdateBanking', ...banking, source: 'form', now })
      .thenRefuses('NOT_FOUND');
    spec.given([]).when({ type: 'RecordUnmask', byUserId: 4, now }).thenRefuses('NOT_FOUND');
  });
  it('forgets once; after that a sync leaves it forgotten and staff changes are refused', () => {
    const forgotten: VendorEvent = {
      type: 'VendorForgotten',
      data: { vendorId: 7, subject: 'vendor-7', at: now },
    };
    spec.given([created, bankingSet]).when({ type: 'ForgetVendor', now }).then([forgotten]);
    spec.given([created, bankingSet, forgotten]).when({ type: 'ForgetVendor', now }).then([]);
    spec
      .given([created, forgotten])
      .when(sync({ ...qb, phone: '555-0100' }))
      .then([]);
    spec
      .given([created, forgotten])
      .when({ type: 'UpdateBanking', ...banking, source: 'form', now })
      .thenRefuses('NOT_FOUND');
    spec
      .given([created, forgotten])
      .when({ type: 'RecordUnmask', byUserId: 1, now })
      .thenRefuses('NOT_FOUND');
    spec.given([]).when({ type: 'ForgetVendor', now }).thenRefuses('NOT_FOUND');
  });
});

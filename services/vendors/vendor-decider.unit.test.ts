import { describe, expect, it } from 'vitest';
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
/** An update as a path makes it: by user 4, the company's control on or off. */
const update = (
  b: typeof banking,
  source: 'form' | 'batch' | 'csv' | 'noc',
  controlled = false,
  byUserId: number | null = 4,
) => ({ type: 'UpdateBanking' as const, ...b, source, byUserId, changeId: 'c1', controlled, now });
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
      .when(update(banking, 'form'))
      .then([
        {
          ...bankingSet,
          data: { ...bankingSet.data, changeId: 'c1', verifiedBy: { kind: 'control-off' } },
        } as VendorEvent,
      ]);
    spec
      .given([created, bankingSet])
      .when(update(banking, 'csv', true))
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
      .when(update(short, 'form'))
      .then([
        {
          type: 'VendorBankingUpdated',
          data: {
            vendorId: 7,
            ...short,
            routingLast4: '0021',
            accountLast4: '5',
            source: 'form',
            changeId: 'c1',
            verifiedBy: { kind: 'control-off' },
            at: now,
          },
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
      .when(update(banking, 'form', true))
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
      .when(update(banking, 'form', true))
      .thenRefuses('NOT_FOUND');
    spec
      .given([created, forgotten])
      .when({ type: 'RecordUnmask', byUserId: 1, now })
      .thenRefuses('NOT_FOUND');
    spec.given([]).when({ type: 'ForgetVendor', now }).thenRefuses('NOT_FOUND');
  });
});

describe('a bank detail change under the company’s control', () => {
  const spec = deciderSpec(vendorDecider);
  const thief = { ...banking, routingNumber: '111000025', accountNumber: '66666666666' };
  const requested = (b = thief, changeId = 'c1', more: Record<string, unknown> = {}): VendorEvent => ({
    type: 'VendorBankingChangeRequested',
    data: {
      vendorId: 7,
      changeId,
      ...b,
      routingLast4: b.routingNumber.slice(-4),
      accountLast4: b.accountNumber.slice(-4),
      previous: { routingLast4: '0021', accountLast4: '6789', accountType: 'checking' },
      source: 'form',
      byUserId: 4,
      replaces: null,
      at: now,
      ...more,
    },
  });

  it('holds a change of the account on every path, leaving the live banking as it was', () => {
    for (const source of ['form', 'batch', 'csv', 'noc'] as const)
      spec
        .given([created, bankingSet])
        .when(update(thief, source, true))
        .then([{ ...requested(), data: { ...requested().data, source } } as VendorEvent]);
    const state = [created, bankingSet, requested()].reduce(
      vendorDecider.evolve,
      vendorDecider.initialState(),
    );
    expect(state.banking?.accountNumber).toBe('123456789');
    expect(state.pending?.banking.accountNumber).toBe('66666666666');
  });

  it('holds a first entry too, and lets a new bank name on the same account through at once', () => {
    spec
      .given([created])
      .when(update(banking, 'form', true))
      .then([{ ...requested(banking), data: { ...requested(banking).data, previous: null } } as VendorEvent]);
    spec
      .given([created, bankingSet])
      .when(update({ ...banking, bankName: 'JPMorgan Chase' }, 'form', true))
      .then([{ ...bankingSet, data: { ...bankingSet.data, bankName: 'JPMorgan Chase' } } as VendorEvent]);
  });

  it('goes live when another person approves it, never its maker', () => {
    spec
      .given([created, bankingSet, requested()])
      .when({ type: 'ApproveBankingChange', changeId: 'c1', byUserId: 4, reason: 'ok', now })
      .thenRefuses('FORBIDDEN', /someone other than its maker/);
    spec
      .given([created, bankingSet, requested()])
      .when({
        type: 'ApproveBankingChange',
        changeId: 'c1',
        byUserId: 5,
        reason: 'Called the vendor back',
        now,
      })
      .then([
        {
          type: 'VendorBankingChangeApproved',
          data: { vendorId: 7, changeId: 'c1', byUserId: 5, reason: 'Called the vendor back', at: now },
        },
        {
          type: 'VendorBankingUpdated',
          data: {
            vendorId: 7,
            ...thief,
            routingLast4: '0025',
            accountLast4: '6666',
            source: 'form',
            changeId: 'c1',
            verifiedBy: { kind: 'second-person', byUserId: 5 },
            at: now,
          },
        },
      ]);
  });

  it('leaves the old banking when rejected; a decided change cannot be decided again', () => {
    const rejected: VendorEvent = {
      type: 'VendorBankingChangeRejected',
      data: { vendorId: 7, changeId: 'c1', byUserId: 5, reason: 'Not the vendor', at: now },
    };
    spec
      .given([created, bankingSet, requested()])
      .when({ type: 'RejectBankingChange', changeId: 'c1', byUserId: 5, reason: 'Not the vendor', now })
      .then([rejected]);
    const state = [created, bankingSet, requested(), rejected].reduce(
      vendorDecider.evolve,
      vendorDecider.initialState(),
    );
    expect(state.banking?.accountNumber).toBe('123456789');
    expect(state.pending).toBeNull();
    spec
      .given([created, bankingSet, requested(), rejected])
      .when({ type: 'ApproveBankingChange', changeId: 'c1', byUserId: 5, reason: 'ok', now })
      .thenRefuses('CONFLICT', /no longer pending/);
  });

  it('a frozen change can only be rejected, and blocks any other change until it is', () => {
    const frozen: VendorEvent = {
      type: 'VendorBankingChangeFrozen',
      data: { vendorId: 7, changeId: 'c1', via: 'contact-link', at: now },
    };
    spec
      .given([created, bankingSet, requested()])
      .when({ type: 'FreezeBankingChange', changeId: 'c1', now })
      .then([frozen]);
    spec
      .given([created, bankingSet, requested(), frozen])
      .when({ type: 'FreezeBankingChange', changeId: 'c1', now })
      .then([]);
    spec
      .given([created, bankingSet, requested(), frozen])
      .when({ type: 'ApproveBankingChange', changeId: 'c1', byUserId: 5, reason: 'ok', now })
      .thenRefuses('CONFLICT', /only be rejected/);
    spec
      .given([created, bankingSet, requested(), frozen])
      .when(update({ ...thief, accountNumber: '77777777777' }, 'csv', true))
      .thenRefuses('CONFLICT', /must reject it/);
  });

  it('a newer change replaces the pending one; with the control off it goes live and ends the pending one', () => {
    const other = { ...thief, accountNumber: '77777777777' };
    spec
      .given([created, bankingSet, requested()])
      .when({ ...update(other, 'form', true), changeId: 'c2' })
      .then([requested(other, 'c2', { replaces: 'c1' })]);
    spec
      .given([created, bankingSet, requested()])
      .when(update(thief, 'form', true))
      .then([]);
    spec
      .given([created, bankingSet, requested()])
      .when({ ...update(other, 'batch', false), changeId: 'c2' })
      .then([
        {
          type: 'VendorBankingChangeRejected',
          data: {
            vendorId: 7,
            changeId: 'c1',
            byUserId: null,
            reason: 'Replaced by a change made while the company’s control was off',
            at: now,
          },
        },
        {
          type: 'VendorBankingUpdated',
          data: {
            vendorId: 7,
            ...other,
            routingLast4: '0025',
            accountLast4: '7777',
            source: 'batch',
            changeId: 'c2',
            verifiedBy: { kind: 'control-off' },
            at: now,
          },
        },
      ]);
  });

  it('with the control off, the pending change’s own numbers sent again go live and end it', () => {
    // The company turned the control off while a change waited: saving the same numbers is the way to
    // make them live without a second person, and must not leave them pending.
    spec
      .given([created, bankingSet, requested()])
      .when({ ...update(thief, 'form', false), changeId: 'c2' })
      .then([
        {
          type: 'VendorBankingChangeRejected',
          data: {
            vendorId: 7,
            changeId: 'c1',
            byUserId: null,
            reason: 'Replaced by a change made while the company’s control was off',
            at: now,
          },
        },
        {
          type: 'VendorBankingUpdated',
          data: {
            vendorId: 7,
            ...thief,
            routingLast4: thief.routingNumber.slice(-4),
            accountLast4: thief.accountNumber.slice(-4),
            source: 'form',
            changeId: 'c2',
            verifiedBy: { kind: 'control-off' },
            at: now,
          },
        },
      ]);
  });
});

describe('a vendor’s remittance advice', () => {
  const spec = deciderSpec(vendorDecider);
  const set = (enabled: boolean) => ({ type: 'SetRemittanceAdvice' as const, enabled, byUserId: 4, now });
  const turnedOff: VendorEvent = {
    type: 'VendorRemittanceAdviceSet',
    data: { vendorId: 7, enabled: false, byUserId: 4, at: now },
  };

  it('is on until staff turn it off, on record with who; setting it as it is records nothing', () => {
    spec.given([created]).when(set(true)).then([]);
    spec.given([created]).when(set(false)).then([turnedOff]);
    spec.given([created, turnedOff]).when(set(false)).then([]);
    spec
      .given([created, turnedOff])
      .when(set(true))
      .then([
        { type: 'VendorRemittanceAdviceSet', data: { vendorId: 7, enabled: true, byUserId: 4, at: now } },
      ]);
  });

  it('is refused for a vendor not synced or forgotten', () => {
    spec
      .given([])
      .when(set(false))
      .thenRefuses('NOT_FOUND', /Vendor not found/);
    spec
      .given([created, { type: 'VendorForgotten', data: { vendorId: 7, subject: 'vendor-7', at: now } }])
      .when(set(false))
      .thenRefuses('NOT_FOUND', /Vendor not found/);
  });
});

describe('a vendor mail about a change that ended', () => {
  const spec = deciderSpec(vendorDecider);
  it('is recorded whatever the change’s state, its reason cut to 500 characters', () => {
    spec
      .given([created])
      .when({
        type: 'RecordBankingMailEnded',
        changeId: 'c9',
        mail: 'change-notice',
        outcome: 'failed',
        reason: 'x'.repeat(600),
        mailJobId: 'mail_k1',
        now,
      })
      .then([
        {
          type: 'VendorBankingMailEnded',
          data: {
            vendorId: 7,
            changeId: 'c9',
            mail: 'change-notice',
            outcome: 'failed',
            reason: 'x'.repeat(500),
            mailJobId: 'mail_k1',
            at: now,
          },
        },
      ]);
  });
});

// The vendor's side of a held bank detail change, given/when/then on the vendor decider: the notice's
// "this was not me" link freezes only its own change while unexpired; a micro-deposit verification
// starts only on a pending, unfrozen change; the right amounts (either order) make it live, verified
// by micro-deposits; wrong ones take a try and three lock it; a newer verification or a second
// person's approval still can end it; downloads are recorded.
import { describe, expect, it } from 'vitest';
import type { VendorEvent } from '../../schema/vendors/events.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { MICRO_DEPOSIT_TRIES } from './micro-deposit-rules.js';
import { vendorDecider } from './vendor-decider.js';

const now = '2026-01-02T03:04:05.000Z';
const later = '2026-01-20T03:04:05.000Z';
const expiresAt = '2026-01-16T03:04:05.000Z';
const created: VendorEvent = {
  type: 'VendorCreated',
  data: {
    vendorId: 7,
    companyId: 2,
    qbVendorId: '55',
    name: 'Acme Paper LLC',
    email: 'ap@acme.example',
    phone: null,
    active: true,
    syncedAt: now,
  },
};
const old = { routingNumber: '021000021', accountNumber: '123456789', accountType: 'checking' as const };
const bankingSet: VendorEvent = {
  type: 'VendorBankingUpdated',
  data: {
    vendorId: 7,
    ...old,
    bankName: null,
    routingLast4: '0021',
    accountLast4: '6789',
    source: 'form',
    at: now,
  },
};
const thief = { routingNumber: '111000025', accountNumber: '66666666666', accountType: 'checking' as const };
const requested = (changeId = 'c1'): VendorEvent => ({
  type: 'VendorBankingChangeRequested',
  data: {
    vendorId: 7,
    changeId,
    ...thief,
    bankName: null,
    routingLast4: '0025',
    accountLast4: '6666',
    previous: { routingLast4: '0021', accountLast4: '6789', accountType: 'checking' },
    source: 'form',
    byUserId: 4,
    replaces: null,
    at: now,
  },
});
const noticed = (changeId = 'c1'): VendorEvent => ({
  type: 'VendorBankingChangeNoticed',
  data: { vendorId: 7, changeId, outcome: 'sent', linkId: `l-${changeId}`, expiresAt, at: now },
});
const frozen: VendorEvent = {
  type: 'VendorBankingChangeFrozen',
  data: { vendorId: 7, changeId: 'c1', via: 'contact-link', at: now },
};
const file = {
  fileId: 'f1',
  fileName: 'ACH_20260102_9.txt',
  fileIdModifier: '9',
  effectiveDate: '2026-01-05',
};
const start = (verificationId = 'v1', changeId = 'c1') => ({
  type: 'StartMicroDeposits' as const,
  changeId,
  verificationId,
  amountsCents: [12, 87] as const,
  file,
  accountLast4: '6666',
  byUserId: 4,
  expiresAt,
  now,
});
const sent = (verificationId = 'v1'): VendorEvent => ({
  type: 'VendorMicroDepositsSent',
  data: {
    vendorId: 7,
    changeId: 'c1',
    verificationId,
    amountsCents: [12, 87],
    ...file,
    accountLast4: '6666',
    byUserId: 4,
    tries: MICRO_DEPOSIT_TRIES,
    expiresAt,
    at: now,
  },
});
const enter = (amountsCents: number[], verificationId = 'v1', at = now) => ({
  type: 'ConfirmMicroDeposits' as const,
  changeId: 'c1',
  verificationId,
  amountsCents,
  now: at,
});
const mismatched = (triesLeft: number, verificationId = 'v1'): VendorEvent => ({
  type: 'VendorMicroDepositsMismatched',
  data: { vendorId: 7, changeId: 'c1', verificationId, triesLeft, at: now },
});

describe('the notice to the vendor’s contact on record', () => {
  const spec = deciderSpec(vendorDecider);

  it('records that the notice went, with its link, or that nobody could be told', () => {
    spec
      .given([created, bankingSet, requested()])
      .when({ type: 'RecordBankingNotice', changeId: 'c1', outcome: 'sent', linkId: 'l-c1', expiresAt, now })
      .then([noticed()]);
    spec
      .given([created, requested()])
      .when({
        type: 'RecordBankingNotice',
        changeId: 'c1',
        outcome: 'no-contact',
        linkId: 'ignored',
        expiresAt,
        now,
      })
      .then([
        {
          type: 'VendorBankingChangeNoticed',
          data: {
            vendorId: 7,
            changeId: 'c1',
            outcome: 'no-contact',
            linkId: null,
            expiresAt: null,
            at: now,
          },
        },
      ]);
  });

  it('freezes through the notice’s own link of the pending change only, while it has not expired', () => {
    const press = (linkId: string, at = now) => ({
      type: 'FreezeBankingChange' as const,
      changeId: 'c1',
      now: at,
      link: { linkId },
    });
    spec.given([created, bankingSet, requested(), noticed()]).when(press('l-c1')).then([frozen]);
    spec
      .given([created, bankingSet, requested(), noticed()])
      .when(press('l-other'))
      .thenRefuses('FORBIDDEN', /not valid for this change/);
    spec
      .given([created, bankingSet, requested()])
      .when(press('l-c1'))
      .thenRefuses('FORBIDDEN', /not valid for this change/);
    spec
      .given([created, bankingSet, requested(), noticed()])
      .when(press('l-c1', later))
      .thenRefuses('CONFLICT', /expired/);
    // A newer change replaced it: the old notice's link no longer acts.
    spec
      .given([created, bankingSet, requested(), noticed(), requested('c2')])
      .when(press('l-c1'))
      .thenRefuses('CONFLICT', /no longer pending/);
    // Pressed again: nothing more happens.
    spec.given([created, bankingSet, requested(), noticed(), frozen]).when(press('l-c1')).then([]);
  });
});

describe('a micro-deposit verification', () => {
  const spec = deciderSpec(vendorDecider);
  const base = [created, bankingSet, requested(), noticed()];

  it('starts on a pending change only, never a frozen one, with three tries and the amounts', () => {
    spec.given(base).when(start()).then([sent()]);
    spec
      .given([...base, frozen])
      .when(start())
      .thenRefuses('CONFLICT', /only be rejected/);
    spec
      .given(base)
      .when(start('v1', 'c-gone'))
      .thenRefuses('CONFLICT', /no longer pending/);
    spec
      .given(base)
      .when({ ...start(), amountsCents: [0, 100] })
      .thenRefuses('VALIDATION');
  });

  it('goes live on the right amounts, in either order, verified by micro-deposits', () => {
    for (const amounts of [
      [12, 87],
      [87, 12],
    ])
      spec
        .given([...base, sent()])
        .when(enter(amounts))
        .then([
          {
            type: 'VendorMicroDepositsConfirmed',
            data: { vendorId: 7, changeId: 'c1', verificationId: 'v1', at: now },
          },
          {
            type: 'VendorBankingUpdated',
            data: {
              vendorId: 7,
              ...thief,
              bankName: null,
              routingLast4: '0025',
              accountLast4: '6666',
              source: 'form',
              changeId: 'c1',
              verifiedBy: { kind: 'micro-deposits' },
              at: now,
            },
          },
        ]);
    const confirmed = vendorDecider.decide(
      enter([12, 87]),
      [...base, sent()].reduce(vendorDecider.evolve, vendorDecider.initialState()),
    );
    const state = [...base, sent(), ...confirmed].reduce(vendorDecider.evolve, vendorDecider.initialState());
    expect(state.banking?.accountNumber).toBe('66666666666');
    expect(state.pending).toBeNull();
    // Used: the link finds nothing pending any more.
    spec
      .given([...base, sent(), ...confirmed])
      .when(enter([12, 87]))
      .thenRefuses('CONFLICT', /no longer pending/);
  });

  it('takes a try for wrong amounts and locks after the third; the old banking stays', () => {
    spec
      .given([...base, sent()])
      .when(enter([12, 88]))
      .then([mismatched(2)]);
    spec
      .given([...base, sent(), mismatched(2)])
      .when(enter([1, 2]))
      .then([mismatched(1)]);
    spec
      .given([...base, sent(), mismatched(2), mismatched(1)])
      .when(enter([87]))
      .then([mismatched(0)]);
    const locked = [...base, sent(), mismatched(2), mismatched(1), mismatched(0)];
    spec
      .given(locked)
      .when(enter([12, 87]))
      .thenRefuses('CONFLICT', /locked/);
    const state = locked.reduce(vendorDecider.evolve, vendorDecider.initialState());
    expect(state.banking?.accountNumber).toBe('123456789');
    expect(state.pending?.verification?.triesLeft).toBe(0);
    // A locked verification ends by a new one (its tries start again) or a second person's approval.
    spec
      .given(locked)
      .when(start('v2'))
      .then([sent('v2')]);
    spec
      .given([...locked, sent('v2')])
      .when(enter([87, 12], 'v2'))
      .then(
        vendorDecider.decide(
          enter([87, 12], 'v2'),
          [...base, sent('v2')].reduce(vendorDecider.evolve, vendorDecider.initialState()),
        ),
      );
    const approved = vendorDecider.decide(
      { type: 'ApproveBankingChange', changeId: 'c1', byUserId: 5, reason: 'Called the vendor', now },
      state,
    );
    expect(approved.map((e) => e.type)).toEqual(['VendorBankingChangeApproved', 'VendorBankingUpdated']);
  });

  it('refuses an older verification’s link, an expired one, and any entry once frozen', () => {
    spec
      .given([...base, sent('v1'), sent('v2')])
      .when(enter([12, 87], 'v1'))
      .thenRefuses('CONFLICT', /replaced by a newer one/);
    spec
      .given([...base, sent()])
      .when(enter([12, 87], 'v1', later))
      .thenRefuses('CONFLICT', /expired/);
    spec
      .given([...base, sent(), frozen])
      .when(enter([12, 87]))
      .thenRefuses('CONFLICT', /only be rejected/);
    // A change without a verification: nothing to enter.
    spec
      .given(base)
      .when(enter([12, 87]))
      .thenRefuses('CONFLICT', /No micro-deposit verification/);
  });

  it('records each download of the file with who', () => {
    spec
      .given([...base, sent()])
      .when({
        type: 'RecordMicroDepositsDownload',
        changeId: 'c1',
        verificationId: 'v1',
        fileId: 'f1',
        byUserId: 5,
        now,
      })
      .then([
        {
          type: 'VendorMicroDepositsFileDownloaded',
          data: { vendorId: 7, changeId: 'c1', verificationId: 'v1', fileId: 'f1', byUserId: 5, at: now },
        },
      ]);
  });
});

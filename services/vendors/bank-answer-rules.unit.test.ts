// The bank's answers on the vendor decider, given/when/then: a return blocks the live account once per
// entry and a changed account gone live lifts it, on record; a notification of change proposes the
// corrected banking as a held change (whatever the company's control), once per entry and bank file,
// approved by an ADMIN only; a code that corrects no bank detail is noted.
import { describe, expect, it } from 'vitest';
import type { VendorEvent } from '../../schema/vendors/events.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { vendorDecider } from './vendor-decider.js';

const now = '2026-12-07T15:00:00.000Z';
const trace = '021000020000007';
const fileId = 'a'.repeat(64);
const created: VendorEvent = {
  type: 'VendorCreated',
  data: {
    vendorId: 7,
    companyId: 2,
    qbVendorId: '55',
    name: 'Acme',
    email: null,
    phone: null,
    active: true,
    syncedAt: now,
  },
};
const banking: {
  routingNumber: string;
  accountNumber: string;
  accountType: 'checking' | 'savings';
  bankName: string;
} = { routingNumber: '011000015', accountNumber: '7100000101', accountType: 'checking', bankName: 'BofA' };
const live = (b = banking, more: Record<string, unknown> = {}): VendorEvent => ({
  type: 'VendorBankingUpdated',
  data: {
    vendorId: 7,
    ...b,
    routingLast4: b.routingNumber.slice(-4),
    accountLast4: b.accountNumber.slice(-4),
    source: 'form',
    at: now,
    ...more,
  },
});
const block = {
  type: 'BlockBanking' as const,
  traceNumber: trace,
  inboundFileId: fileId,
  returnCode: 'R03',
  description: 'No account/unable to locate account',
  action: 'block-account' as const,
  accountLast4: '0101',
  now,
};
const blocked: VendorEvent = {
  type: 'VendorBankingBlocked',
  data: {
    vendorId: 7,
    traceNumber: trace,
    inboundFileId: fileId,
    code: 'R03',
    description: 'No account/unable to locate account',
    action: 'block-account',
    accountLast4: '0101',
    at: now,
  },
};
const noc = (
  changeCode: string,
  corrected: { routingNumber?: string; accountNumber?: string; accountType?: 'checking' | 'savings' },
  inboundFileId = fileId,
) => ({
  type: 'ProposeBankCorrection' as const,
  traceNumber: trace,
  inboundFileId,
  changeCode,
  description: 'Incorrect DFI account number',
  dueBy: '2026-12-15',
  corrected: {
    routingNumber: corrected.routingNumber ?? null,
    accountNumber: corrected.accountNumber ?? null,
    accountType: corrected.accountType ?? null,
  },
  changeId: 'noc-1',
  now,
});
const nocRequested = (b: typeof banking, code = 'C01', replaces: string | null = null): VendorEvent => ({
  type: 'VendorBankingChangeRequested',
  data: {
    vendorId: 7,
    changeId: 'noc-1',
    ...b,
    routingLast4: b.routingNumber.slice(-4),
    accountLast4: b.accountNumber.slice(-4),
    previous: { routingLast4: '0015', accountLast4: '0101', accountType: 'checking' },
    source: 'noc',
    byUserId: null,
    replaces,
    noc: {
      traceNumber: trace,
      inboundFileId: fileId,
      code,
      description: 'Incorrect DFI account number',
      dueBy: '2026-12-15',
    },
    at: now,
  },
});

describe('a return from the bank', () => {
  const spec = deciderSpec(vendorDecider);

  it('blocks the live account it paid, once per returned entry', () => {
    spec.given([created, live()]).when(block).then([blocked]);
    spec.given([created, live(), blocked]).when(block).then([]);
    const state = [created, live(), blocked].reduce(vendorDecider.evolve, vendorDecider.initialState());
    expect(state.block).toMatchObject({ traceNumber: trace, returnCode: 'R03' });
  });

  it('an investigate code blocks too: nothing retries it until someone changes the bank details', () => {
    spec
      .given([created, live()])
      .when({
        ...block,
        returnCode: 'R23',
        description: 'Credit entry refused by receiver',
        action: 'investigate',
      })
      .then([
        {
          type: 'VendorBankingBlocked',
          data: {
            ...(blocked.data as object),
            code: 'R23',
            description: 'Credit entry refused by receiver',
            action: 'investigate',
          },
        } as VendorEvent,
      ]);
  });

  it('a return to an account no longer live, or of a vendor without banking, blocks nothing: it is noted once', () => {
    const note = (text: string): VendorEvent => ({
      type: 'VendorBankNoticeNoted',
      data: {
        vendorId: 7,
        kind: 'return',
        traceNumber: trace,
        inboundFileId: fileId,
        code: 'R03',
        description: 'No account/unable to locate account',
        note: text,
        dueBy: null,
        at: now,
      },
    });
    const moved = live({ ...banking, accountNumber: '7100000999' });
    const gone = note(
      'The returned payment went to an account that is no longer the live one: nothing blocked',
    );
    spec.given([created, moved]).when(block).then([gone]);
    spec.given([created, moved, gone]).when(block).then([]);
    spec
      .given([created])
      .when(block)
      .then([note('No bank details on record now: nothing to block')]);
  });

  it('is lifted, on record, when a changed account goes live; the same account again or a new bank name does not lift it', () => {
    const other = { ...banking, accountNumber: '7100000202' };
    spec
      .given([created, live(), blocked])
      .when({
        type: 'UpdateBanking',
        ...other,
        source: 'form',
        byUserId: 4,
        changeId: 'c9',
        controlled: false,
        now,
      })
      .then([
        live(other, { changeId: 'c9', verifiedBy: { kind: 'control-off' } }),
        {
          type: 'VendorBankingUnblocked',
          data: {
            vendorId: 7,
            traceNumber: trace,
            returnCode: 'R03',
            changeId: 'c9',
            accountLast4: '0202',
            at: now,
          },
        },
      ]);
    spec
      .given([created, live(), blocked])
      .when({
        type: 'UpdateBanking',
        ...banking,
        bankName: 'Bank of America',
        source: 'form',
        byUserId: 4,
        changeId: 'c9',
        controlled: true,
        now,
      })
      .then([live({ ...banking, bankName: 'Bank of America' })]);
    // Held: the block stays until the change is approved, which lifts it.
    const held: VendorEvent = {
      type: 'VendorBankingChangeRequested',
      data: {
        vendorId: 7,
        changeId: 'c9',
        ...other,
        routingLast4: '0015',
        accountLast4: '0202',
        previous: { routingLast4: '0015', accountLast4: '0101', accountType: 'checking' },
        source: 'form',
        byUserId: 4,
        replaces: null,
        at: now,
      },
    };
    spec
      .given([created, live(), blocked])
      .when({
        type: 'UpdateBanking',
        ...other,
        source: 'form',
        byUserId: 4,
        changeId: 'c9',
        controlled: true,
        now,
      })
      .then([held]);
    const approved = vendorDecider.decide(
      { type: 'ApproveBankingChange', changeId: 'c9', byUserId: 5, reason: 'Called the vendor', now },
      [created, live(), blocked, held].reduce(vendorDecider.evolve, vendorDecider.initialState()),
    );
    expect(approved.map((e) => e.type)).toEqual([
      'VendorBankingChangeApproved',
      'VendorBankingUpdated',
      'VendorBankingUnblocked',
    ]);
  });
});

describe('a notification of change from the bank', () => {
  const spec = deciderSpec(vendorDecider);

  it('C01 proposes the corrected account as a held change by the system, once per entry and bank file', () => {
    const corrected = { ...banking, accountNumber: '7100000102' };
    spec
      .given([created, live()])
      .when(noc('C01', { accountNumber: '7100000102' }))
      .then([nocRequested(corrected)]);
    spec
      .given([created, live(), nocRequested(corrected)])
      .when(noc('C01', { accountNumber: '7100000102' }))
      .then([]);
  });

  it('C05 keeps the live numbers and changes the type; C02, C03, C06 and C07 replace what they name', () => {
    spec
      .given([created, live()])
      .when(noc('C05', { accountType: 'savings' }))
      .then([nocRequested({ ...banking, accountType: 'savings' }, 'C05')]);
    const cases = [
      ['C02', { routingNumber: '021000021' }, { ...banking, routingNumber: '021000021' }],
      [
        'C03',
        { routingNumber: '021000021', accountNumber: '55' },
        { ...banking, routingNumber: '021000021', accountNumber: '55' },
      ],
      [
        'C06',
        { accountNumber: '55', accountType: 'savings' },
        { ...banking, accountNumber: '55', accountType: 'savings' },
      ],
      [
        'C07',
        { routingNumber: '021000021', accountNumber: '55', accountType: 'savings' },
        { routingNumber: '021000021', accountNumber: '55', accountType: 'savings', bankName: 'BofA' },
      ],
    ] as const;
    for (const [code, corrected, expected] of cases) {
      const [event] = vendorDecider.decide(
        noc(code, corrected),
        [created, live()].reduce(vendorDecider.evolve, vendorDecider.initialState()),
      );
      expect(event.type).toBe('VendorBankingChangeRequested');
      expect(event.data).toMatchObject({ ...expected, source: 'noc', byUserId: null });
    }
  });

  it('C04, C09 and C13 change no banking: a note in the history, once', () => {
    for (const code of ['C04', 'C09', 'C13']) {
      const [event] = vendorDecider.decide(
        noc(code, {}),
        [created, live()].reduce(vendorDecider.evolve, vendorDecider.initialState()),
      );
      expect(event).toMatchObject({
        type: 'VendorBankNoticeNoted',
        data: {
          kind: 'correction',
          code,
          dueBy: '2026-12-15',
          note: expect.stringMatching(/no bank detail/),
        },
      });
      spec.given([created, live(), event]).when(noc(code, {})).then([]);
    }
  });

  it('is held even with the company control off, and only an ADMIN approves it (never micro-deposits)', () => {
    const corrected = { ...banking, accountNumber: '7100000102' };
    const given = [created, live(), nocRequested(corrected)];
    spec
      .given(given)
      .when({ type: 'ApproveBankingChange', changeId: 'noc-1', byUserId: 5, reason: 'Bank said so', now })
      .thenRefuses('FORBIDDEN', /ADMIN/);
    spec
      .given(given)
      .when({
        type: 'StartMicroDeposits',
        changeId: 'noc-1',
        verificationId: 'v1',
        amountsCents: [12, 34],
        file: { fileId: 'f', fileName: 'f.ach', fileIdModifier: '4', effectiveDate: '2026-12-08' },
        accountLast4: '0102',
        byUserId: 5,
        expiresAt: now,
        now,
      })
      .thenRefuses('CONFLICT', /ADMIN/);
    spec
      .given(given)
      .when({
        type: 'ApproveBankingChange',
        changeId: 'noc-1',
        byUserId: 5,
        reason: 'Bank said so',
        now,
        byAdmin: true,
      })
      .then([
        {
          type: 'VendorBankingChangeApproved',
          data: { vendorId: 7, changeId: 'noc-1', byUserId: 5, reason: 'Bank said so', at: now },
        },
        live(corrected, {
          source: 'noc',
          changeId: 'noc-1',
          verifiedBy: { kind: 'second-person', byUserId: 5 },
        }),
      ]);
  });

  it('does not act on a vendor whose held change was reported as not theirs, nor repeat the live banking', () => {
    const frozen: VendorEvent[] = [
      {
        type: 'VendorBankingChangeRequested',
        data: {
          ...(nocRequested({ ...banking, accountNumber: '666' }).data as object),
          changeId: 'c1',
          source: 'form',
          byUserId: 4,
          noc: undefined,
        } as Extract<VendorEvent, { type: 'VendorBankingChangeRequested' }>['data'],
      },
      {
        type: 'VendorBankingChangeFrozen',
        data: { vendorId: 7, changeId: 'c1', via: 'contact-link', at: now },
      },
    ];
    const [held] = vendorDecider.decide(
      noc('C01', { accountNumber: '7100000102' }),
      [created, live(), ...frozen].reduce(vendorDecider.evolve, vendorDecider.initialState()),
    );
    expect(held).toMatchObject({
      type: 'VendorBankNoticeNoted',
      data: { note: expect.stringMatching(/reject it/) },
    });
    const [same] = vendorDecider.decide(
      noc('C01', { accountNumber: banking.accountNumber }),
      [created, live()].reduce(vendorDecider.evolve, vendorDecider.initialState()),
    );
    expect(same).toMatchObject({
      type: 'VendorBankNoticeNoted',
      data: { note: expect.stringMatching(/already/) },
    });
  });
});

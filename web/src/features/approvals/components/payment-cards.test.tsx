// The payment cards of the approval detail in jsdom: when the NACHA card and the
// sync card show, who gets Regenerate, the penny test and Retry, what the NACHA card says while a
// generation waits on a fix, the earlier versions, the toasts of regenerate and the penny test
// (with their calls on the REST paths), the sync card's detail items and its error boundary.
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import { captureDownloads } from '../../../testing/downloads';
import { mockFetch } from '../../../testing/fetch-mock';
import {
  createGraphQLMock,
  type GraphQLMock,
  GraphQLTestProvider,
  gqlError,
} from '../../../testing/graphql-mock';
import { GeneratePennyTest, type PaymentView, RegenerateNacha, RetryQbSync } from '../api/payments';
import { ID, sampleApproval } from '../testing/sample-approval';
import { NachaCard } from './nacha-card';
import { QbSyncCard } from './qb-sync-card';

const FILE_URL = `/api/bill-approval/approvals/${ID}/nacha-files/f2`;

/** The sample approval as the cards read it: pending, nothing generated, nothing synced. */
const payment = (over: Partial<PaymentView> = {}): PaymentView => ({ ...sampleApproval(), ...over });

const generated = (over: Partial<PaymentView> = {}) =>
  payment({
    status: 'NACHA_GENERATED',
    nachaFileGenerated: true,
    nachaFileName: 'NACHA_JUNIPER_20261127_B.txt',
    nachaBatchNumber: 2,
    nachaGeneratedAt: '2026-11-27T10:00:00.000Z',
    nachaProcessingStatus: 'GENERATED',
    nachaFileUrl: FILE_URL,
    nachaVersion: 2,
    ...over,
  });

let gql: GraphQLMock;
function show(ui: React.ReactNode) {
  return render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter>
        {ui}
        <Toaster />
      </MemoryRouter>
    </GraphQLTestProvider>,
  );
}

let saved: string[] = [];
beforeEach(() => {
  gql = createGraphQLMock();
  saved = captureDownloads();
});
afterEach(() => {
  cleanup();
  resetToasts();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('NachaCard visibility', () => {
  it('is hidden for a PENDING approval with no file and no penny test', () => {
    show(<NachaCard canDownload payment={payment()} canManage={false} />);
    expect(screen.queryByTestId('nacha-card')).toBeNull();
  });

  it.each([
    ['APPROVED', payment({ status: 'APPROVED' })],
    ['a generated file', generated()],
    ['a file name alone', payment({ status: 'REJECTED', nachaFileName: 'x.txt' })],
    ['a batch number alone', payment({ status: 'EXPIRED', nachaBatchNumber: 1 })],
    ['a penny test', payment({ pennyTestGenerated: true })],
    ['NACHA_PENDING', payment({ status: 'NACHA_PENDING', nachaProcessingStatus: 'REQUESTED' })],
  ])('shows for %s', (_, p) => {
    show(<NachaCard canDownload payment={p} canManage={false} />);
    expect(screen.getByTestId('nacha-card')).toBeTruthy();
  });

  it('shows the file with its download, and Regenerate and the penny test only for staff', () => {
    const { unmount } = show(<NachaCard canDownload payment={generated()} canManage={false} />);
    expect(screen.getByTestId('nacha-file-name').textContent).toBe('NACHA_JUNIPER_20261127_B.txt');
    expect(screen.getByTestId('nacha-processing-status').textContent).toBe('Generated');
    expect(screen.getByRole('button', { name: 'Download NACHA File' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Regenerate NACHA File' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Generate Penny Test' })).toBeNull();
    unmount();
    show(<NachaCard canDownload payment={generated({ nachaFileUrl: null })} canManage />);
    expect(screen.queryByRole('button', { name: 'Download NACHA File' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Regenerate NACHA File' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Generate Penny Test' })).toBeTruthy();
  });

  it('says what to fix while the generation waits on a fix, and lists the earlier versions', () => {
    show(
      <NachaCard
        canDownload
        canManage
        payment={payment({
          status: 'NACHA_PENDING',
          nachaProcessingStatus: 'FAILED',
          nachaProblems: [
            { kind: 'VENDOR_BANKING', vendorName: 'Acme Paper', message: 'No routing number' },
            { kind: 'COMPANY_SETTINGS', vendorName: null, message: 'The company has no NACHA settings' },
          ],
          nachaFiles: [
            {
              fileId: 'f1',
              kind: 'PAYMENT',
              fileName: 'NACHA_A.txt',
              version: 1,
              batchNumber: 1,
              generatedAt: '2026-11-26T10:00:00.000Z',
              url: '/api/bill-approval/approvals/x/nacha-files/f1',
              current: false,
            },
          ],
        })}
      />,
    );
    expect(screen.getByTestId('nacha-processing-status').textContent).toBe('Needs attention');
    const problems = within(screen.getByTestId('nacha-problems')).getAllByRole('listitem');
    expect(problems.map((li) => li.textContent)).toEqual([
      'Acme Paper: No routing number',
      'The company has no NACHA settings',
    ]);
    expect(within(screen.getByTestId('nacha-earlier')).getByText(/NACHA_A\.txt/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Download version 1' })).toBeTruthy();
  });
});

describe('NachaCard actions', () => {
  it('regenerates: the server’s message in the success toast', async () => {
    gql.on(RegenerateNacha, {
      regenerateNacha: {
        message: 'NACHA file version 3 requested',
        approval: { id: ID, status: 'NACHA_PENDING' },
      },
    });
    show(<NachaCard canDownload payment={generated()} canManage />);
    await userEvent.click(screen.getByRole('button', { name: 'Regenerate NACHA File' }));
    await screen.findByText('NACHA file regenerated successfully');
    expect(screen.getByText('NACHA file version 3 requested')).toBeTruthy();
    expect(gql.calls(RegenerateNacha)).toEqual([{ id: ID }]);
  });

  it('regenerates with the effective date chosen, and shows the file’s date in words', async () => {
    gql.on(RegenerateNacha, {
      regenerateNacha: {
        message: 'The NACHA file is being regenerated',
        approval: { id: ID, status: 'NACHA_PENDING' },
      },
    });
    show(
      <NachaCard
        canDownload
        payment={generated({
          nachaEffectiveDate: '2026-12-07',
          nachaSameDay: true,
          nachaDateNote: null,
        })}
        canManage
      />,
    );
    expect(screen.getByTestId('nacha-effective').textContent).toBe('Effective Mon, Dec 7 (same-day)');
    const field = screen.getByLabelText('Effective date (empty: next banking day)') as HTMLInputElement;
    expect(field.type).toBe('date');
    await userEvent.type(field, '2026-12-10');
    await userEvent.click(screen.getByRole('button', { name: 'Regenerate NACHA File' }));
    await screen.findByText('NACHA file regenerated successfully');
    expect(gql.calls(RegenerateNacha)).toEqual([{ id: ID, effectiveDate: '2026-12-10' }]);
  });

  it('a next-day file says its date without same-day, and why it is not the date asked for', () => {
    const note = 'The chosen effective date 2026-12-04 no longer holds: the file is effective 2026-12-08';
    show(
      <NachaCard
        canDownload
        payment={generated({ nachaEffectiveDate: '2026-12-08', nachaSameDay: false, nachaDateNote: note })}
        canManage={false}
      />,
    );
    expect(screen.getByTestId('nacha-effective').textContent).toBe('Effective Tue, Dec 8');
    expect(screen.getByTestId('nacha-date-note').textContent).toBe(note);
  });

  it('says when the file also carries other approvals’ batches, and not when it is the file’s only one', () => {
    show(<NachaCard canDownload payment={generated({ nachaFileSharedWith: 3 })} canManage={false} />);
    expect(screen.getByTestId('nacha-shared-with').textContent).toBe(
      'This file also carries the batches of 3 other approvals made for the same cut-off window: it goes to the bank once, and each approval is confirmed on its own.',
    );
    cleanup();
    show(<NachaCard canDownload payment={generated({ nachaFileSharedWith: 0 })} canManage={false} />);
    expect(screen.queryByTestId('nacha-shared-with')).toBeNull();
  });

  it('a refused regenerate is titled as the spec says, with the server’s reason', async () => {
    gql.on(RegenerateNacha, gqlError('A NACHA file is being generated already', { code: 'CONFLICT' }));
    show(<NachaCard canDownload payment={generated()} canManage />);
    await userEvent.click(screen.getByRole('button', { name: 'Regenerate NACHA File' }));
    await screen.findByText('Failed to regenerate NACHA file');
    expect(screen.getByText('A NACHA file is being generated already')).toBeTruthy();
  });

  it.each(['BANK_UPLOADED', 'PAYMENT_COMPLETED'] as const)(
    'at the bank (%s): Regenerate shows disabled, saying why; nothing is sent',
    (status) => {
      show(<NachaCard canDownload payment={generated({ status })} canManage />);
      const button = screen.getByRole('button', { name: 'Regenerate NACHA File' }) as HTMLButtonElement;
      expect(button.disabled).toBe(true);
      const reason = screen.getByTestId('regenerate-blocked');
      expect(reason.textContent).toBe(
        'The NACHA file is already at the bank: a second file would pay the vendors twice',
      );
      expect(button.getAttribute('aria-describedby')).toBe(reason.id);
      expect(gql.calls(RegenerateNacha)).toEqual([]);
    },
  );

  it('offers no download to a viewer whose role may not download the files', () => {
    show(
      <NachaCard
        canDownload={false}
        canManage={false}
        payment={generated({
          pennyTestGenerated: true,
          pennyTestFileName: 'PENNY_JUNIPER.txt',
          pennyTestFileUrl: `/api/bill-approval/approvals/${ID}/nacha-files/p1`,
          nachaFiles: [
            {
              fileId: 'f1',
              kind: 'PAYMENT',
              fileName: 'NACHA_A.txt',
              version: 1,
              batchNumber: 1,
              generatedAt: '2026-11-26T10:00:00.000Z',
              url: `/api/bill-approval/approvals/${ID}/nacha-files/f1`,
              current: false,
            },
          ],
        })}
      />,
    );
    // What the files are still shows; only their downloads are not offered.
    expect(screen.getByTestId('nacha-file-name').textContent).toBe('NACHA_JUNIPER_20261127_B.txt');
    expect(within(screen.getByTestId('nacha-earlier')).getByText(/NACHA_A\.txt/)).toBeTruthy();
    expect(within(screen.getByTestId('penny-test')).getByText('PENNY_JUNIPER.txt')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Download/ })).toBeNull();
  });

  it('downloads the file as text with the bearer token', async () => {
    localStorage.setItem('auth_token', 'tok-1');
    const { calls } = mockFetch(
      () => new Response('101 ...', { status: 200, headers: { 'content-type': 'text/plain' } }),
    );
    show(<NachaCard canDownload payment={generated()} canManage={false} />);
    await userEvent.click(screen.getByRole('button', { name: 'Download NACHA File' }));
    await screen.findByText('NACHA file download started');
    expect(calls[0].url).toBe(FILE_URL);
    expect(calls[0].headers.get('Authorization')).toBe('Bearer tok-1');
    expect(saved).toEqual(['NACHA_JUNIPER_20261127_B.txt']);
  });

  it('penny test: amount and vendor count in the toast; the result with its download', async () => {
    gql.on(GeneratePennyTest, {
      generatePennyTest: { testAmount: 1.23, vendorCount: 3, fileName: 'PENNY.txt', batchNumber: 7 },
    });
    const { unmount } = show(<NachaCard canDownload payment={payment({ status: 'APPROVED' })} canManage />);
    await userEvent.click(screen.getByRole('button', { name: 'Generate Penny Test' }));
    await screen.findByText('Penny Test Generated');
    expect(screen.getByText('Test amount $1.23 to 3 vendors')).toBeTruthy();
    expect(gql.calls(GeneratePennyTest)).toEqual([{ id: ID }]);
    unmount();
    show(
      <NachaCard
        canDownload
        canManage={false}
        payment={payment({
          status: 'APPROVED',
          pennyTestGenerated: true,
          pennyTestBatchNumber: 7,
          pennyTestFileName: 'PENNY_TEST.txt',
          pennyTestAmount: 1.23,
          pennyTestVendorCount: 3,
          pennyTestGeneratedAt: '2026-11-27T10:00:00.000Z',
          pennyTestFileUrl: '/api/bill-approval/approvals/x/nacha-files/p1',
        })}
      />,
    );
    expect(screen.getByTestId('penny-amount').textContent).toBe('$1.23');
    expect(screen.getByText('PENNY_TEST.txt')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Download Penny Test File' })).toBeTruthy();
  });

  it.each([
    ['No vendors have complete banking information', 'No Vendor Banking Information'],
    ['Penny test validation failed: Acme Paper has no account type', 'Vendor Banking Information Issues'],
    ['Something else broke', 'Failed to Generate Penny Test'],
  ])('penny test refusal "%s" → "%s", shown 8 s', async (message, title) => {
    gql.on(GeneratePennyTest, gqlError(message));
    show(<NachaCard canDownload payment={payment({ status: 'APPROVED' })} canManage />);
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      await userEvent.click(screen.getByRole('button', { name: 'Generate Penny Test' }));
      await screen.findByText(title);
      if (title === 'Vendor Banking Information Issues')
        expect(screen.getByText('Acme Paper has no account type')).toBeTruthy();
      await vi.advanceTimersByTimeAsync(6000);
      expect(screen.queryByText(title)).toBeTruthy();
      await vi.advanceTimersByTimeAsync(2600);
      expect(screen.queryByText(title)).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('QbSyncCard', () => {
  // '' and UNKNOWN are outside the schema's statuses: the card hides rather than guess.
  it.each([[null], [''], ['UNKNOWN']])('is hidden for sync status %s', (s) => {
    const qbPaymentSyncStatus = s as PaymentView['qbPaymentSyncStatus'];
    show(<QbSyncCard payment={payment({ status: 'PAYMENT_COMPLETED', qbPaymentSyncStatus })} staff />);
    expect(screen.queryByTestId('qb-sync-card')).toBeNull();
  });

  it.each<[PaymentView['qbPaymentSyncStatus'], PaymentView['status'], boolean]>([
    ['FAILED', 'PAYMENT_COMPLETED', true],
    ['PARTIAL_SUCCESS', 'PAYMENT_COMPLETED', true],
    ['SUCCESS', 'PAYMENT_COMPLETED', false],
    ['SYNCING', 'PAYMENT_COMPLETED', false],
    ['PENDING', 'PAYMENT_COMPLETED', false],
    ['SKIPPED', 'PAYMENT_COMPLETED', false],
    ['FAILED', 'BANK_UPLOADED', false],
  ])('sync %s on %s: retry offered %s', (sync, status, retry) => {
    show(<QbSyncCard payment={payment({ status, qbPaymentSyncStatus: sync })} staff />);
    expect(screen.getByTestId('qb-sync-card')).toBeTruthy();
    expect(Boolean(screen.queryByRole('button', { name: 'Retry QB Sync' }))).toBe(retry);
  });

  it('shows message, time and the detail items (from the JSON text too); retries with the spec’s toast', async () => {
    gql.on(RetryQbSync, {
      retryQbSync: { message: 'Paying 1 bill', approval: { id: ID, status: 'PAYMENT_COMPLETED' } },
    });
    show(
      <QbSyncCard
        staff
        payment={payment({
          status: 'PAYMENT_COMPLETED',
          qbPaymentSyncStatus: 'PARTIAL_SUCCESS',
          qbPaymentSyncMessage: '1 of 2 bills paid',
          qbPaymentSyncAt: '2026-11-27T10:00:00.000Z',
          qbPaymentSyncItems: [],
          qbPaymentSyncDetails: JSON.stringify([
            {
              billId: '11',
              docNumber: 'D-1',
              vendorName: 'Acme',
              amount: 10,
              billPaymentId: 'BP9',
              duration: 42,
              error: null,
              success: true,
            },
            {
              billId: '12',
              docNumber: null,
              vendorName: null,
              amount: 5,
              billPaymentId: null,
              duration: 7,
              error: 'Stale object',
              success: false,
            },
          ]),
        })}
      />,
    );
    expect(screen.getByTestId('qb-sync-message').textContent).toBe('1 of 2 bills paid');
    const items = within(screen.getByTestId('qb-sync-items')).getAllByRole('listitem');
    expect(items[0].textContent).toContain('Payment BP9');
    expect(items[0].textContent).toContain('42 ms');
    expect(items[1].textContent).toContain('Stale object');
    expect(items[1].textContent).toContain('Unknown Vendor · Doc # N/A');
    await userEvent.click(screen.getByRole('button', { name: 'Retry QB Sync' }));
    await screen.findByText('QB sync retry initiated');
    expect(screen.getByText('Paying 1 bill')).toBeTruthy();
    expect(gql.calls(RetryQbSync)).toEqual([{ id: ID }]);
  });

  it('a refused retry: "Failed to retry QB sync"', async () => {
    gql.on(RetryQbSync, gqlError('Sync already running', { code: 'CONFLICT' }));
    show(
      <QbSyncCard staff payment={payment({ status: 'PAYMENT_COMPLETED', qbPaymentSyncStatus: 'FAILED' })} />,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Retry QB Sync' }));
    await screen.findByText('Failed to retry QB sync');
    expect(screen.getByText('Sync already running')).toBeTruthy();
  });

  it('a card that cannot render says so and leaves the page', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const broken = payment({ status: 'PAYMENT_COMPLETED', qbPaymentSyncStatus: 'SUCCESS' });
    // A detail item the server sent malformed (no list where one is due) makes the body throw.
    (broken as { qbPaymentSyncItems: unknown }).qbPaymentSyncItems = [null];
    show(<QbSyncCard staff payment={broken} />);
    expect(screen.getByText('Error loading QuickBooks sync status')).toBeTruthy();
    spy.mockRestore();
  });
});

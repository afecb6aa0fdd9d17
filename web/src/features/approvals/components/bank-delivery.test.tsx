// The file's delivery to the bank over SFTP on the NACHA card, in jsdom: each state in plain words
// (waiting for the cut-off in New York time, sent and acknowledged, refused by the bank, not sent),
// no one asked to confirm an upload the system makes while the file stays downloadable, Send now
// behind its confirm with the server's message or refusal in the toast, and on the detail page Send
// now for an ADMIN only.
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import { sessionStore } from '../../../lib/session-store';
import { sampleUser } from '../../../testing/fetch-mock';
import {
  createGraphQLMock,
  type GraphQLMock,
  GraphQLTestProvider,
  gqlError,
} from '../../../testing/graphql-mock';
import { ApprovalHistoryQuery, ApprovalQuery, ManagerOptionsQuery } from '../api/approvals';
import { type BankDelivery, type PaymentView, SendWaitingFilesNow } from '../api/payments';
import { ID, sampleApproval } from '../testing/sample-approval';
import { ApprovalDetailPage } from './approval-detail-page';
import { NachaCard } from './nacha-card';

const FILE = 'ACH_JUNIPER_20261207_A.txt';

const delivery = (over: Partial<BankDelivery> = {}): BankDelivery => ({
  status: 'scheduled',
  fileName: FILE,
  version: 1,
  // 2:30 PM in New York (EST) on Monday, December 7.
  windowAt: '2026-12-07T19:30:00.000Z',
  deliveredAt: null,
  size: null,
  sha256: null,
  foundThere: null,
  bankAnswer: null,
  bankText: null,
  failure: null,
  ...over,
});

const sent = (over: Partial<BankDelivery> = {}) =>
  delivery({
    status: 'delivered',
    deliveredAt: '2026-12-07T15:15:04.000Z',
    size: 1234,
    sha256: 'a'.repeat(64),
    foundThere: false,
    ...over,
  });

const generated = (bankDelivery: BankDelivery | null, over: Partial<PaymentView> = {}): PaymentView => ({
  ...sampleApproval(),
  status: 'NACHA_GENERATED',
  nachaFileGenerated: true,
  nachaFileName: FILE,
  nachaBatchNumber: 1,
  nachaGeneratedAt: '2026-12-06T16:00:00.000Z',
  nachaProcessingStatus: 'GENERATED',
  nachaFileUrl: `/api/bill-approval/approvals/${ID}/nacha-files/f1`,
  nachaVersion: 1,
  paymentLinkSentAt: '2026-12-06T16:00:00.000Z',
  paymentLinkExpiresAt: '2026-12-13T16:00:00.000Z',
  bankDelivery,
  ...over,
});

let gql: GraphQLMock;
function show(p: PaymentView, canSendNow = false) {
  return render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter>
        <NachaCard payment={p} canManage canDownload canSendNow={canSendNow} />
        <Toaster />
      </MemoryRouter>
    </GraphQLTestProvider>,
  );
}
const words = () => screen.getByTestId('bank-delivery-words').textContent;

beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
beforeEach(() => {
  gql = createGraphQLMock();
});
afterEach(() => {
  cleanup();
  resetToasts();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('the delivery to the bank on the NACHA card', () => {
  it('while the file waits for its window: the cut-off in New York time, and no upload asked of anyone', () => {
    show(generated(delivery()), true);
    expect(words()).toBe(
      'Waiting for the 2:30 PM cut-off (New York), Mon Dec 7 — sent to the bank by the system then',
    );
    expect(screen.getByRole('button', { name: 'Send now' })).toBeTruthy();
    // The system uploads it: no link or confirmation of the bank upload is asked of people.
    expect(screen.queryByTestId('payment-link-standing')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Confirm in app' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Send link again' })).toBeNull();
    // The file stays downloadable.
    expect(screen.getByRole('button', { name: 'Download NACHA File' })).toBeTruthy();
  });

  it('a company that sends by hand keeps the bank-upload link and its confirmation, and no Send now', () => {
    show(generated(null), true);
    expect(screen.queryByTestId('bank-delivery')).toBeNull();
    expect(screen.getByTestId('payment-link-standing')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Confirm in app' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Send now' })).toBeNull();
  });

  it.each([
    [
      'sent and acknowledged',
      sent({ bankAnswer: 'acknowledged', bankText: 'ACCEPTED' }),
      'BANK_UPLOADED',
      `Sent to the bank Dec 7, 10:15 AM (${FILE}, 1,234 bytes) — the bank acknowledged it`,
    ],
    [
      'sent, its answer not read yet',
      sent(),
      'BANK_UPLOADED',
      `Sent to the bank Dec 7, 10:15 AM (${FILE}, 1,234 bytes) — waiting for the bank’s acknowledgement`,
    ],
    [
      'found already in the inbox',
      sent({ foundThere: true }),
      'BANK_UPLOADED',
      `Found in the bank’s inbox Dec 7, 10:15 AM (${FILE}, 1,234 bytes): sent before, so not sent again — waiting for the bank’s acknowledgement`,
    ],
    [
      'refused by the bank',
      sent({ bankAnswer: 'rejected', bankText: 'File rejected: batch totals do not match' }),
      'BANK_UPLOADED',
      'The bank refused it: File rejected: batch totals do not match',
    ],
    [
      'not sent',
      delivery({ status: 'failed', failure: "The bank's host key changed; nothing was sent" }),
      'NACHA_GENERATED',
      "Not sent: The bank's host key changed; nothing was sent",
    ],
  ] as const)('%s: says so in plain words, with no Send now', (_, d, status, text) => {
    show(generated(d, { status }), true);
    expect(words()).toBe(text);
    expect(screen.queryByRole('button', { name: 'Send now' })).toBeNull();
  });

  it('a refusal or a failure is said as a problem; a file not sent leaves the bank upload to people', () => {
    show(generated(delivery({ status: 'failed', failure: 'The stored file is no longer there to send.' })));
    expect(screen.getByRole('alert').textContent).toBe(
      'Not sent: The stored file is no longer there to send.',
    );
    expect(screen.getByRole('button', { name: 'Confirm in app' })).toBeTruthy();
  });

  it('says nothing of a schedule the approval no longer waits for (its upload confirmed otherwise)', () => {
    show(
      generated(delivery(), { status: 'BANK_UPLOADED', bankUploadReason: 'Uploaded at the branch' }),
      true,
    );
    expect(screen.queryByTestId('bank-delivery')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Send now' })).toBeNull();
  });

  it('Send now asks first, then sends the company’s waiting files: the server’s message or refusal', async () => {
    let answer: unknown = { sendWaitingFilesNow: '1 waiting file will be sent now' };
    gql.on(SendWaitingFilesNow, () => answer as never);
    show(generated(delivery()), true);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Send now' }));
    const dialog = await screen.findByRole('alertdialog');
    expect(within(dialog).getByText("Send the company's waiting files to the bank now?")).toBeTruthy();
    expect(gql.calls(SendWaitingFilesNow)).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Send now' }));
    let toast = await screen.findByTestId('toast');
    expect(within(toast).getByText('1 waiting file will be sent now')).toBeTruthy();
    expect(gql.calls(SendWaitingFilesNow)).toEqual([{ companyId: 3 }]);
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());

    const refusal = 'This company sends its files by hand: there is nothing to send over SFTP';
    answer = gqlError(refusal, { code: 'CONFLICT' });
    resetToasts();
    await user.click(screen.getByRole('button', { name: 'Send now' }));
    await user.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Send now' }),
    );
    toast = await screen.findByTestId('toast');
    expect(within(toast).getByText('Not sent')).toBeTruthy();
    expect(within(toast).getByText(refusal)).toBeTruthy();
  });
});

describe('Send now on the approval’s page', () => {
  function page() {
    gql.on(ApprovalQuery, { approval: { ...sampleApproval(), ...generated(delivery()) } });
    gql.on(ApprovalHistoryQuery, { approvalHistory: [] });
    gql.on(ManagerOptionsQuery, { approvalManagerOptions: [] });
    return render(
      <GraphQLTestProvider mock={gql}>
        <MemoryRouter initialEntries={[`/approvals/${ID}`]}>
          <Routes>
            <Route path="/approvals/:id" element={<ApprovalDetailPage />} />
          </Routes>
        </MemoryRouter>
      </GraphQLTestProvider>,
    );
  }

  it('is offered to an ADMIN', async () => {
    sessionStore.setUser({ ...sampleUser, role: 'ADMIN' });
    page();
    await screen.findByTestId('bank-delivery');
    expect(screen.getByRole('button', { name: 'Send now' })).toBeTruthy();
  });

  it.each(['MODERATOR', 'USER'] as const)(
    'is not offered to a %s, who still reads where the file is',
    async (role) => {
      sessionStore.setUser({ ...sampleUser, role });
      page();
      expect((await screen.findByTestId('bank-delivery-words')).textContent).toMatch(
        /^Waiting for the 2:30 PM cut-off/,
      );
      expect(screen.queryByRole('button', { name: 'Send now' })).toBeNull();
    },
  );
});

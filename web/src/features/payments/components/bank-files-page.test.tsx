// The bank files page as staff read it: the files with their counts, a file opened to its parked
// entries and a refused file to its reasons, what needs attention (overdue notifications in red,
// linked to approval and vendor), and an ADMIN reading a file: the upload carries the file, the
// result is said in plain words and the lists are read again; a refusal shows the server's words.
// A MODERATOR is not offered the upload (the server refuses it).
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sessionStore } from '../../../lib/session-store';
import { tokenStorage } from '../../../lib/token-storage';
import { json, mockFetch, sampleUser } from '../../../testing/fetch-mock';
import { createGraphQLMock, type GraphQLMock, GraphQLTestProvider } from '../../../testing/graphql-mock';
import {
  AchInboundFilesQuery,
  INBOUND_FILES_PATH,
  type InboundFile,
  type NeedingAttention,
  NeedingAttentionQuery,
} from '../api/bank-files';
import { BankFilesPage } from './bank-files-page';

const NOC_FILE: InboundFile = {
  fileId: 'a'.repeat(64),
  fileName: 'COR_1.ach',
  source: 'UPLOAD',
  status: 'APPLIED',
  returns: 0,
  corrections: 2,
  applied: 1,
  alreadyApplied: 0,
  reasons: [],
  receivedAt: '2026-12-06T15:00:00.000Z',
  appliedAt: '2026-12-06T15:00:01.000Z',
  parked: [
    {
      line: 12,
      kind: 'RETURN',
      originalTrace: '021000029999999',
      code: 'R03',
      amountCents: 12500,
      reason: 'no entry of a Billflow file has this trace number',
    },
  ],
};

const REFUSED_FILE: InboundFile = {
  ...NOC_FILE,
  fileId: 'b'.repeat(64),
  fileName: 'outbox-bad.ach',
  source: 'SFTP',
  status: 'REFUSED',
  corrections: 0,
  applied: null,
  alreadyApplied: null,
  parked: [],
  reasons: ['line 3: EntryDetail.traceNumber: must be 15 digits'],
};

const attention = (over: Partial<NeedingAttention> = {}): NeedingAttention => ({
  today: '2026-12-16',
  lookbackDays: 30,
  corrections: [
    {
      traceNumber: '021000020000002',
      companyId: 7,
      companyName: 'Harbor Foods',
      approvalId: '1234abcd-0000-4000-8000-000000000001',
      vendorId: 42,
      vendorName: 'Paper Co',
      amountCents: 5000,
      accountLast4: '0101',
      code: 'C01',
      description: 'Incorrect DFI Account Number',
      receivedAt: '2026-12-06T15:00:00.000Z',
      correctedAccountLast4: '0102',
      correctedRoutingLast4: null,
      dueBy: '2026-12-15',
      overdue: true,
    },
  ],
  returns: [
    {
      traceNumber: '021000020000001',
      companyId: 7,
      companyName: 'Harbor Foods',
      approvalId: '1234abcd-0000-4000-8000-000000000001',
      vendorId: 41,
      vendorName: 'Ink Ltd',
      amountCents: 12500,
      accountLast4: '0003',
      code: 'R03',
      description: 'No Account/Unable to Locate Account',
      receivedAt: '2026-12-06T16:00:00.000Z',
    },
  ],
  ...over,
});

let gql: GraphQLMock;

const renderPage = () =>
  render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter initialEntries={['/bank-files']}>
        <BankFilesPage />
      </MemoryRouter>
    </GraphQLTestProvider>,
  );

beforeEach(() => {
  sessionStore.setUser(sampleUser);
  tokenStorage.setTokens({ accessToken: 'access-1', refreshToken: 'refresh-1' });
  gql = createGraphQLMock();
  gql.on(AchInboundFilesQuery, { achInboundFiles: [NOC_FILE, REFUSED_FILE] });
  gql.on(NeedingAttentionQuery, { paymentEntriesNeedingAttention: attention() });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function pick(content: string, name = 'RET_2.ach') {
  fireEvent.click(await screen.findByRole('button', { name: 'Read a bank file' }));
  const file = new File([content], name, { type: 'text/plain' });
  fireEvent.change(screen.getByLabelText('Bank file'), { target: { files: [file] } });
  fireEvent.click(screen.getByRole('button', { name: 'Read file' }));
  return file;
}

describe('BankFilesPage', () => {
  it('lists the files read, and opens one to its parked entries and a refused one to its reasons', async () => {
    renderPage();
    expect(screen.getByRole('heading', { level: 1, name: 'Bank files' })).toBeTruthy();
    expect(document.title).toBe('Bank files · Billflow');
    const row = await screen.findByTestId('bank-file-COR_1.ach');
    expect(
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['COR_1.ach', 'Uploaded', expect.any(String), 'Applied', '0', '2', '1 / 0', '1']);
    expect(screen.queryByTestId('bank-file-parked-COR_1.ach')).toBeNull();
    const open = within(row).getByRole('button', { name: 'COR_1.ach' });
    expect(open.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(open);
    expect(open.getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByTestId('bank-file-parked-COR_1.ach').textContent).toBe(
      'line 12 · R03 · $125.00 · no entry of a Billflow file has this trace number',
    );
    const refused = screen.getByTestId('bank-file-outbox-bad.ach');
    expect(within(refused).getByText('Refused')).toBeTruthy();
    expect(within(refused).getByText('Bank’s outbox')).toBeTruthy();
    fireEvent.click(within(refused).getByRole('button', { name: 'outbox-bad.ach' }));
    expect(screen.getByTestId('bank-file-reasons-outbox-bad.ach').textContent).toContain(
      'line 3: EntryDetail.traceNumber: must be 15 digits',
    );
  });

  it('shows what needs attention: the overdue notification in red, the return, each linked', async () => {
    renderPage();
    const correction = await screen.findByTestId('correction-021000020000002');
    expect(correction.textContent).toContain('C01 for Paper Co, due Dec 15 — overdue');
    expect(correction.getAttribute('data-overdue')).toBe('true');
    expect(within(correction).getByText('C01 for Paper Co, due Dec 15 — overdue').className).toContain(
      'text-destructive',
    );
    expect(within(correction).getByRole('link', { name: 'approval 1234abcd' }).getAttribute('href')).toBe(
      '/approvals/1234abcd-0000-4000-8000-000000000001',
    );
    expect(within(correction).getByRole('link', { name: 'vendor Paper Co' }).getAttribute('href')).toBe(
      '/vendors/42',
    );
    const ret = screen.getByTestId('return-021000020000001');
    expect(ret.textContent).toContain('R03 for Ink Ltd, $125.00');
    expect(within(ret).getByRole('link', { name: 'vendor Ink Ltd' }).getAttribute('href')).toBe(
      '/vendors/41',
    );
  });

  it('says a correction not yet due without "overdue", and none open when there are none', async () => {
    const [c] = attention().corrections;
    gql.on(NeedingAttentionQuery, {
      paymentEntriesNeedingAttention: attention({
        corrections: [{ ...c, overdue: false, dueBy: '2026-12-24' }],
        returns: [],
      }),
    });
    renderPage();
    const correction = await screen.findByTestId('correction-021000020000002');
    expect(correction.textContent).toContain('C01 for Paper Co, due Dec 24');
    expect(correction.textContent).not.toContain('overdue');
    expect(within(screen.getByTestId('needs-attention-card')).getByText('None')).toBeTruthy();
    cleanup();
    gql.on(NeedingAttentionQuery, { paymentEntriesNeedingAttention: attention({ corrections: [] }) });
    renderPage();
    expect(await screen.findByText('None open')).toBeTruthy();
    expect(screen.getByTestId('return-021000020000001')).toBeTruthy();
  });

  it('reads a file as an ADMIN: uploads it, says the outcome in plain words and reads the lists again', async () => {
    const { calls } = mockFetch((call) =>
      call.url === INBOUND_FILES_PATH
        ? json(200, {
            success: true,
            data: {
              fileId: 'c'.repeat(64),
              fileName: 'RET_2.ach',
              appliedNow: true,
              returns: 2,
              corrections: 1,
              applied: 3,
              alreadyApplied: 0,
              parked: [
                {
                  line: 7,
                  kind: 'correction',
                  originalTrace: '021000029999998',
                  code: 'C01',
                  amountCents: 4000,
                  reason: 'no entry of a Billflow file has this trace number',
                },
              ],
            },
          })
        : json(404, { success: false, message: 'unexpected' }),
    );
    renderPage();
    await screen.findByTestId('bank-file-COR_1.ach');
    const readsBefore = gql.calls(AchInboundFilesQuery).length;
    const file = await pick('101 ...');
    const outcome = await screen.findByTestId('bank-file-outcome');
    expect(outcome.textContent).toBe(
      '2 returns, 1 notification of change: 3 applied, 0 already on record, 1 parked for a person',
    );
    expect(screen.getByTestId('bank-file-outcome-parked').textContent).toBe(
      'line 7 · C01 · $40.00 · no entry of a Billflow file has this trace number',
    );
    expect(calls).toHaveLength(1);
    expect(calls[0].method).toBe('POST');
    expect(calls[0].headers.get('Authorization')).toBe('Bearer access-1');
    expect((calls[0].body as FormData).get('file')).toEqual(file);
    await waitFor(() => expect(gql.calls(AchInboundFilesQuery).length).toBeGreaterThan(readsBefore));
    fireEvent.click(screen.getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByTestId('bank-file-outcome')).toBeNull());
  });

  it("shows the server's refusal and keeps the dialog open to pick another file", async () => {
    mockFetch(() =>
      json(400, {
        success: false,
        code: 'VALIDATION',
        message: 'The file is not a valid ACH return file: line 1: FileHeader.recordType: must be 1',
      }),
    );
    renderPage();
    await pick('hello\n', 'notes.ach');
    const refusal = await screen.findByTestId('bank-file-refusal');
    expect(refusal.textContent).toBe(
      'The file is not a valid ACH return file: line 1: FileHeader.recordType: must be 1',
    );
    expect(screen.queryByTestId('bank-file-outcome')).toBeNull();
    expect(screen.getByRole('button', { name: 'Read file' })).toBeTruthy();
  });

  it('offers a MODERATOR the lists but not the upload', async () => {
    sessionStore.setUser({ ...sampleUser, role: 'MODERATOR' });
    renderPage();
    await screen.findByTestId('bank-file-COR_1.ach');
    expect(screen.queryByRole('button', { name: 'Read a bank file' })).toBeNull();
  });
});

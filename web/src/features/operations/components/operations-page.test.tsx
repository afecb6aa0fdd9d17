import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionStore } from '../../../lib/session-store';
import { sampleUser } from '../../../testing/fetch-mock';
import {
  createGraphQLMock,
  type GraphQLMock,
  GraphQLTestProvider,
  gqlError,
} from '../../../testing/graphql-mock';
import {
  BankAttentionQuery,
  DismissParkedEvent,
  OperationsChanged,
  type OperationsOverview,
  OperationsQuery,
} from '../api/operations';
import { OperationsPage } from './operations-page';

const overview = (over: Partial<OperationsOverview> = {}): OperationsOverview => ({
  generatedAt: '2026-01-01T10:00:00.000Z',
  redis: 'UP',
  queues: [
    {
      name: 'maintenance',
      available: true,
      counts: { waiting: 1, active: 0, delayed: 2, failed: 0, completed: 7, paused: 0 },
      failedJobs: [],
    },
  ],
  consumers: [
    {
      name: 'users',
      kind: 'PROJECTION',
      checkpoint: '0000000000001234:0000000000000056',
      lagSeconds: 0,
      updatedAt: '2026-01-01T10:00:00.000Z',
      parked: [],
      dismissed: [],
    },
  ],
  logHolder: null,
  bankingPatterns: {
    lookbackDays: 30,
    rapidChangeThreshold: 5,
    paymentWithinHours: 24,
    rapidChanges: [],
    changedThenPaid: [],
  },
  ...over,
});

let gql: GraphQLMock;

const renderPage = () =>
  render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter initialEntries={['/operations']}>
        <OperationsPage />
      </MemoryRouter>
    </GraphQLTestProvider>,
  );

const bank = {
  lookbackDays: 30,
  openCorrections: 3,
  overdueCorrections: 2,
  parkedEntries: 1,
  failedDeliveries: 2,
  returns: 4,
};

beforeEach(() => {
  sessionStore.setUser(sampleUser);
  gql = createGraphQLMock();
  gql.on(BankAttentionQuery, { bankAttention: bank });
});
afterEach(cleanup);

describe('OperationsPage', () => {
  it('shows the counts, the consumers and the empty states', async () => {
    gql.on(OperationsQuery, { operations: overview() });
    renderPage();
    expect(screen.getByRole('heading', { level: 1, name: 'Operations' })).toBeTruthy();
    await screen.findByText('No failed jobs');
    expect(screen.getByText('No parked events')).toBeTruthy();
    const patterns = screen.getByTestId('banking-patterns-card');
    expect(within(patterns).getAllByText('None')).toHaveLength(2);
    expect(patterns.textContent).toContain('more than 5 vendors’ bank details within an hour');
    const row = screen.getByTestId('queue-row-maintenance');
    expect(
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['maintenance', '1', '0', '2', '0', '7']);
    const consumer = screen.getByTestId('consumer-row-users');
    expect(consumer.textContent).toContain('1234:56');
    expect(consumer.textContent).toContain('caught up');
    expect(screen.queryAllByRole('alert')).toEqual([]);
  });

  it('shows an error with a retry when the overview cannot load', async () => {
    gql.on(OperationsQuery, gqlError('boom', { code: 'INTERNAL', status: 500 }));
    renderPage();
    const alert = await screen.findByTestId('operations-error', {}, { timeout: 10_000 });
    expect(alert.textContent).toContain('Error loading operations');
    expect(within(alert).getByRole('button', { name: 'Retry' })).toBeTruthy();
  });

  it('warns when Redis is down and when a transaction holds back the log', async () => {
    gql.on(OperationsQuery, {
      operations: overview({
        redis: 'DOWN',
        queues: [{ name: 'maintenance', available: false, counts: null, failedJobs: [] }],
        logHolder: {
          pid: 4242,
          ageSeconds: 31.6,
          query: 'SELECT pg_advisory_xact_lock($1)',
          state: 'idle in transaction',
        },
      }),
    });
    renderPage();
    expect((await screen.findByTestId('redis-down')).textContent).toMatch(/Redis is unreachable/);
    const holder = screen.getByTestId('log-holder');
    expect(holder.textContent).toMatch(/process 4242, open for 32 s/);
    expect(holder.textContent).toContain('pg_advisory_xact_lock');
    expect(within(screen.getByTestId('queue-row-maintenance')).getByText('Unavailable')).toBeTruthy();
  });

  it('takes newer overviews from the subscription: a failed job and a parked event appear', async () => {
    gql.on(OperationsQuery, { operations: overview() });
    renderPage();
    await screen.findByText('No failed jobs');
    act(() => {
      gql.push(OperationsChanged, {
        operationsChanged: {
          ...overview({ generatedAt: '2026-01-01T10:00:02.000Z' }),
          redis: 'UP',
          queues: [
            {
              ...overview().queues[0],
              failedJobs: [
                {
                  id: '17',
                  name: 'purge',
                  failedReason: 'disk full',
                  attemptsMade: 3,
                  failedAt: '2026-01-01T10:00:01.000Z',
                  approvalId: null,
                  companyId: null,
                  companyName: null,
                },
                {
                  id: '18',
                  name: 'generate-nacha',
                  failedReason: 'the database could not be reached',
                  attemptsMade: 5,
                  failedAt: '2026-01-01T10:00:01.500Z',
                  approvalId: '0f9a1c2e-1111-4222-8333-444455556666',
                  companyId: 3,
                  companyName: 'Sunrise Bakery',
                },
              ],
            },
          ],
          consumers: [
            {
              ...overview().consumers[0],
              kind: 'PROCESS_MANAGER',
              name: 'pm:users',
              parked: [
                {
                  eventId: 'e1',
                  eventType: 'UserRegistered',
                  position: '0000000000000009:0000000000000001',
                  streamId: 'user-1',
                  error: 'no such row',
                  attempts: 5,
                  parkedAt: '2026-01-01T10:00:01.000Z',
                  retryRequested: false,
                },
              ],
            },
          ],
        },
      });
    });
    const job = await screen.findByTestId('failed-job-17');
    expect(job.textContent).toContain('disk full');
    expect(job.textContent).toContain('Attempts: 3');
    expect(within(job).getByRole('button', { name: 'Retry job purge #17' })).toBeTruthy();
    // A payment job names the company and links to the approval it holds up.
    const payment = screen.getByTestId('failed-job-18');
    expect(payment.textContent).toContain('Sunrise Bakery');
    expect(within(payment).getByRole('link', { name: 'approval 0f9a1c2e' }).getAttribute('href')).toBe(
      '/approvals/0f9a1c2e-1111-4222-8333-444455556666',
    );
    const parked = screen.getByTestId('parked-e1');
    expect(parked.textContent).toContain('no such row');
    expect(within(parked).getByRole('button', { name: 'Retry UserRegistered in pm:users' })).toBeTruthy();
    expect(screen.getByTestId('consumer-row-pm:users').textContent).toContain('Process manager');
  });

  it('Dismiss asks for a reason (blank refused as the server counts it), then lists the event as dismissed', async () => {
    const parkedEvent = {
      eventId: 'e2',
      eventType: 'VendorCreated',
      position: '0000000000000009:0000000000000002',
      streamId: 'vendor-1-9',
      error: 'no such company',
      attempts: 3,
      parkedAt: '2026-01-01T09:00:00.000Z',
      retryRequested: false,
    };
    let dismissedYet = false;
    gql.on(DismissParkedEvent, { dismissParkedEvent: true });
    gql.on(OperationsQuery, () => {
      const consumer = {
        ...overview().consumers[0],
        name: 'vendors',
        parked: dismissedYet ? [] : [parkedEvent],
        dismissed: dismissedYet
          ? [
              {
                ...parkedEvent,
                dismissedAt: '2026-01-01T10:00:05.000Z',
                dismissedBy: { id: 1, name: 'Ada Lovelace' },
                reason: 'Test data',
              },
            ]
          : [],
      };
      return { operations: overview({ consumers: [consumer] }) };
    });
    renderPage();
    const item = await screen.findByTestId('parked-e2');
    expect(within(item).getByRole('button', { name: 'Retry VendorCreated in vendors' })).toBeTruthy();
    fireEvent.click(within(item).getByRole('button', { name: 'Dismiss VendorCreated in vendors' }));
    const dialog = await screen.findByRole('dialog', { name: 'Dismiss parked event' });
    const reason = within(dialog).getByLabelText('Reason *');
    fireEvent.change(reason, { target: { value: '  \u200B ' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Dismiss event' }));
    expect((await within(dialog).findByText('Please give a reason for dismissing the event')).id).toBe(
      reason.getAttribute('aria-describedby'),
    );
    expect(gql.calls(DismissParkedEvent)).toEqual([]);

    dismissedYet = true;
    fireEvent.change(reason, { target: { value: ' Test data ' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Dismiss event' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(gql.calls(DismissParkedEvent)).toEqual([
      { consumer: 'vendors', eventId: 'e2', reason: 'Test data' },
    ]);
    const record = await screen.findByTestId('dismissed-e2');
    expect(record.textContent).toContain('Reason: Test data');
    expect(record.textContent).toContain('Dismissed by Ada Lovelace');
    expect(screen.queryByTestId('parked-e2')).toBeNull();
    expect(screen.getByText('No parked events')).toBeTruthy();
  });

  it('names unusual bank detail changes: a burst by one user, and a vendor paid soon after a change', async () => {
    gql.on(OperationsQuery, {
      operations: overview({
        bankingPatterns: {
          lookbackDays: 30,
          rapidChangeThreshold: 5,
          paymentWithinHours: 24,
          rapidChanges: [
            {
              userId: 7,
              userName: 'Mallory Insider',
              from: '2026-01-01T09:00:00.000Z',
              to: '2026-01-01T09:40:00.000Z',
              vendorCount: 12,
              changeCount: 13,
              vendors: ['Acme Supplies', 'Brightline Freight'],
            },
          ],
          changedThenPaid: [
            {
              changeId: 'chg-1',
              vendorId: 42,
              vendorName: 'Acme Supplies',
              companyName: 'Sunrise Bakery',
              changedByName: 'Mallory Insider',
              changedAt: '2026-01-01T09:00:00.000Z',
              liveAt: '2026-01-01T09:30:00.000Z',
              verifiedBy: 'second-person',
              accountNumber: '****1004',
              approvalId: '0f9a1c2e-1111-4222-8333-444455556666',
              fileVersion: 2,
              paidAt: '2026-01-01T10:00:00.000Z',
              bankUploadedAt: null,
              paidAccountNumber: '****1004',
              amount: 1250.5,
            },
          ],
        },
      }),
    });
    renderPage();
    const burst = await screen.findByTestId('rapid-change-7');
    expect(burst.textContent).toContain('Mallory Insider changed 12 vendors’ bank details within an hour');
    expect(burst.textContent).toContain('13 changes from');
    expect(burst.textContent).toContain('Vendors: Acme Supplies, Brightline Freight, …');
    const paid = screen.getByTestId('changed-then-paid-chg-1');
    expect(paid.textContent).toContain('(Sunrise Bakery): paid $1,250.50 to account ****1004');
    expect(paid.textContent).toContain('Changed to ****1004 by Mallory Insider');
    expect(paid.textContent).toContain('(approved by a second person)');
    expect(paid.textContent).toContain('File v2 made');
    expect(paid.textContent).toContain('not yet at the bank');
    expect(within(paid).getByRole('link', { name: 'Acme Supplies' }).getAttribute('href')).toBe(
      '/vendors/42',
    );
    expect(within(paid).getByRole('link', { name: 'approval 0f9a1c2e' }).getAttribute('href')).toBe(
      '/approvals/0f9a1c2e-1111-4222-8333-444455556666',
    );
  });

  it('says so when the server could not read the bank detail changes', async () => {
    gql.on(OperationsQuery, { operations: overview({ bankingPatterns: null }) });
    renderPage();
    expect((await screen.findByTestId('banking-patterns-unavailable')).textContent).toContain(
      'could not be read just now',
    );
  });

  it('counts what the bank sent back that waits on a person, linking to the bank files', async () => {
    gql.on(OperationsQuery, { operations: overview() });
    renderPage();
    const line = await screen.findByTestId('bank-line');
    expect(line.textContent).toBe(
      'Notifications of change past their deadline: 2 (of 3 open) · Parked entries: 1 · Files not delivered or rejected: 2 · Returns: 4 · last 30 days · Bank files',
    );
    expect(within(line).getByText(/past their deadline/).className).toContain('text-destructive');
    expect(within(line).getByText(/not delivered or rejected/).className).toContain('text-destructive');
    expect(within(line).getByRole('link', { name: 'Bank files' }).getAttribute('href')).toBe('/bank-files');
  });

  it('says so when the server could not read the bank line', async () => {
    gql.on(OperationsQuery, { operations: overview() });
    gql.on(BankAttentionQuery, { bankAttention: null });
    renderPage();
    expect((await screen.findByTestId('bank-unavailable')).textContent).toMatch(/could not be read/);
  });
});

// A vendor sync that QuickBooks throttled: the job waits out Intuit's window and
// goes on, and the dialog says so with the count so far and when it goes on, instead of a bar that
// seems stuck. Progress comes as vendorSyncProgress pushes through the GraphQL client.
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGraphQLMock, GraphQLTestProvider } from '../../../testing/graphql-mock';
import { VendorSyncProgressSubscription } from '../api/vendor-sync-progress';
import { SyncVendors, VendorSyncQuery } from '../api/vendors';
import { SyncVendorsDialog } from './sync-vendors-dialog';

beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
afterEach(cleanup);

const progress = (
  over: Partial<{ processed: number; total: number | null; done: boolean; waiting: boolean }>,
) => ({
  vendorSyncProgress: {
    syncId: 'sync-1',
    processed: 350,
    synced: 350,
    failed: 0,
    total: 1000,
    done: false,
    waiting: false,
    resumesAt: null as string | null,
    ...over,
  },
});

describe('SyncVendorsDialog while QuickBooks throttles', () => {
  it('starts the sync, then says it is waiting for QuickBooks, how far it got and when it goes on', async () => {
    const gql = createGraphQLMock()
      .on(SyncVendors, {
        syncVendors: { syncId: 'sync-1', companyId: 1, status: 'queued', synced: 0, failed: 0 },
      })
      .on(VendorSyncQuery, {
        vendorSync: { syncId: 'sync-1', status: 'queued', synced: 0, failed: 0, error: null },
      });
    const onSynced = vi.fn();
    render(
      <GraphQLTestProvider mock={gql}>
        <SyncVendorsDialog
          open
          onOpenChange={vi.fn()}
          companies={[{ id: 1, name: 'Sunrise Bakery', qbConnectionStatus: 'connected' }]}
          initialCompanyId="1"
          onSynced={onSynced}
        />
      </GraphQLTestProvider>,
    );
    await userEvent.setup().click(screen.getByRole('button', { name: 'Start Sync' }));
    await waitFor(() => expect(gql.subscribed(VendorSyncProgressSubscription)).toBe(1));
    expect(gql.calls(SyncVendors)).toEqual([{ companyId: 1, limit: 1000, offset: 0 }]);
    expect(gql.calls(VendorSyncProgressSubscription)).toEqual([{ syncId: 'sync-1' }]);

    const resumesAt = '2026-11-27T21:00:30.000Z';
    act(() => {
      gql.push(VendorSyncProgressSubscription, {
        vendorSyncProgress: { ...progress({ waiting: true }).vendorSyncProgress, resumesAt },
      });
    });
    const line = await screen.findByText(/Waiting for QuickBooks/);
    expect(line.textContent).toContain('350 of 1000 vendors so far');
    expect(line.textContent).toContain(new Date(resumesAt).toLocaleTimeString());

    act(() => {
      gql.push(VendorSyncProgressSubscription, {
        vendorSyncProgress: {
          ...progress({ processed: 1, total: 1, done: true }).vendorSyncProgress,
          synced: 1,
        },
      });
    });
    await screen.findByText('Done: 1 synced, 0 failed');
    expect(onSynced).toHaveBeenCalled();
  });

  it('counts one vendor in the singular', async () => {
    const gql = createGraphQLMock().on(SyncVendors, {
      syncVendors: { syncId: 'sync-1', companyId: 1, status: 'queued', synced: 0, failed: 0 },
    });
    render(
      <GraphQLTestProvider mock={gql}>
        <SyncVendorsDialog
          open
          onOpenChange={vi.fn()}
          companies={[{ id: 1, name: 'Sunrise Bakery', qbConnectionStatus: 'connected' }]}
          initialCompanyId="1"
          onSynced={vi.fn()}
        />
      </GraphQLTestProvider>,
    );
    await userEvent.setup().click(screen.getByRole('button', { name: 'Start Sync' }));
    await waitFor(() => expect(gql.subscribed(VendorSyncProgressSubscription)).toBe(1));
    act(() => {
      gql.push(VendorSyncProgressSubscription, {
        vendorSyncProgress: progress({ processed: 0, total: 1 }).vendorSyncProgress,
      });
    });
    await screen.findByText('0 of 1 vendor');
  });
});

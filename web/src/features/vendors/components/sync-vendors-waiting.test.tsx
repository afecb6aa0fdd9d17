// A vendor sync that QuickBooks throttled (issue 37 item 2): the job waits out Intuit's window and
// goes on, and the dialog says so with the count so far and when it goes on, instead of a bar that
// seems stuck.
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Client, Provider } from 'urql';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SyncVendorsDialog } from './sync-vendors-dialog';

beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
afterEach(cleanup);

vi.mock('../api/vendors', () => ({
  startVendorSync: vi.fn(async () => ({ syncId: 'sync-1', status: 'queued' })),
  getVendorSync: vi.fn(async () => ({
    syncId: 'sync-1',
    status: 'queued',
    synced: 0,
    failed: 0,
    error: null,
  })),
}));
vi.mock('../api/vendor-sync-progress', () => ({
  useVendorSyncProgress: (syncId: string | null) =>
    syncId
      ? {
          processed: 350,
          synced: 350,
          failed: 0,
          total: 1000,
          done: false,
          waiting: true,
          resumesAt: '2026-11-27T21:00:30.000Z',
        }
      : null,
}));

const client = new Client({ url: '/graphql', exchanges: [] });

describe('SyncVendorsDialog while QuickBooks throttles', () => {
  it('says the sync is waiting for QuickBooks, how far it got and when it goes on', async () => {
    render(
      <Provider value={client}>
        <SyncVendorsDialog
          open
          onOpenChange={vi.fn()}
          companies={[{ id: 1, name: 'Sunrise Bakery', qbConnectionStatus: 'connected' }]}
          initialCompanyId="1"
          onSynced={vi.fn()}
        />
      </Provider>,
    );
    await userEvent.setup().click(screen.getByRole('button', { name: 'Start Sync' }));
    const line = await screen.findByText(/Waiting for QuickBooks/);
    expect(line.textContent).toContain('350 of 1000 vendors so far');
    expect(line.textContent).toContain(new Date('2026-11-27T21:00:30.000Z').toLocaleTimeString());
  });
});

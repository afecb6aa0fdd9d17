// The vendors' CSV exports: everyone with the page gets the masked file; an ADMIN
// also gets Export with full numbers, asked first with a word that the export is recorded, and
// downloaded as vendors-export-full.csv from the same REST path with full=true.
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { sessionStore } from '../../../lib/session-store';
import { captureDownloads } from '../../../testing/downloads';
import { json, mockFetch, sampleUser } from '../../../testing/fetch-mock';
import { createGraphQLMock, GraphQLTestProvider } from '../../../testing/graphql-mock';
import { CompanyChoicesQuery, VendorsQuery } from '../api/vendors';
import { VendorsPage } from './vendors-page';

beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

let saved: string[] = [];
beforeEach(() => {
  saved = captureDownloads();
});

function open() {
  const gql = createGraphQLMock()
    .on(CompanyChoicesQuery, {
      companies: { data: [{ id: 3, name: 'Sunrise Bakery', qbConnectionStatus: 'connected' }] },
    })
    .on(VendorsQuery, { vendors: { data: [], total: 0, page: 1, limit: 20, totalPages: 1 } });
  render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter>
        <VendorsPage />
        <Toaster />
      </MemoryRouter>
    </GraphQLTestProvider>,
  );
}

const csv = (name: string) =>
  new Response('ID,Name\n', {
    status: 200,
    headers: { 'content-type': 'text/csv', 'content-disposition': `attachment; filename="${name}"` },
  });

describe('VendorsPage exports', () => {
  it('offers an ADMIN the full numbers, asked first and said to be recorded', async () => {
    sessionStore.setUser({ ...sampleUser, role: 'ADMIN' });
    const { calls } = mockFetch((call) =>
      call.url.includes('full=true') ? csv('vendors-export-full.csv') : csv('vendors-export.csv'),
    );
    open();
    const user = userEvent.setup();
    await screen.findByText('No vendors found');
    await user.click(screen.getByRole('button', { name: 'Export with full numbers' }));
    const dialog = await screen.findByRole('alertdialog');
    expect(dialog.textContent).toMatch(/full routing and account numbers of the vendors of every company/);
    expect(dialog.textContent).toMatch(/recorded in each of those vendors' history/);
    expect(calls).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Export' }));
    await screen.findByText('Download started');
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(calls.map((c) => c.url)).toEqual(['/api/vendors/export-csv?includeInactive=true&full=true']);
    expect(saved).toEqual(['vendors-export-full.csv']);

    // The masked export stays one click, without full=true.
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(saved).toEqual(['vendors-export-full.csv', 'vendors-export.csv']));
    expect(calls.at(-1)?.url).toBe('/api/vendors/export-csv?includeInactive=true');
  });

  it('says why when the server refuses the full export', async () => {
    sessionStore.setUser({ ...sampleUser, role: 'ADMIN' });
    mockFetch(() => json(403, { success: false, message: 'Only an ADMIN may export the full bank numbers' }));
    open();
    const user = userEvent.setup();
    await screen.findByText('No vendors found');
    await user.click(screen.getByRole('button', { name: 'Export with full numbers' }));
    await user.click(await screen.findByRole('button', { name: 'Export' }));
    await screen.findByText('Only an ADMIN may export the full bank numbers');
    expect(saved).toEqual([]);
  });

  it('offers a MODERATOR only the masked export', async () => {
    sessionStore.setUser({ ...sampleUser, role: 'MODERATOR' });
    mockFetch(() => csv('vendors-export.csv'));
    open();
    await screen.findByText('No vendors found');
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Export with full numbers' })).toBeNull();
  });
});

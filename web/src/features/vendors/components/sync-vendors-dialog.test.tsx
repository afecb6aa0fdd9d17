// The vendors sync as a MODERATOR sees it: the company list answers references (id, name and the
// connection status; no realm id), and the dialog still offers the connected ones.
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGraphQLMock, GraphQLTestProvider } from '../../../testing/graphql-mock';
import { SyncVendorsDialog } from './sync-vendors-dialog';

// Radix Select asks the DOM for pointer capture and scrolling, which jsdom does not have.
beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});
afterEach(cleanup);

// Nothing is sent before a sync starts: the fake server needs no answers.
const gql = createGraphQLMock();

function dialog(companies: Parameters<typeof SyncVendorsDialog>[0]['companies']) {
  return render(
    <GraphQLTestProvider mock={gql}>
      <SyncVendorsDialog
        open
        onOpenChange={vi.fn()}
        companies={companies}
        initialCompanyId="1"
        onSynced={vi.fn()}
      />
    </GraphQLTestProvider>,
  );
}

describe('SyncVendorsDialog', () => {
  it('offers the connected companies of a MODERATOR’s company references', async () => {
    dialog([
      { id: 1, name: 'Sunrise Bakery', qbConnectionStatus: 'connected' },
      { id: 2, name: 'Pinecrest Dental', qbConnectionStatus: 'disconnected' },
      { id: 3, name: 'Northwind Builders', qbConnectionStatus: null },
    ]);
    expect(screen.queryByText(/No company is connected/)).toBeNull();
    const user = userEvent.setup();
    await user.click(screen.getByRole('combobox', { name: 'Company to sync' }));
    const options = await screen.findAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['Sunrise Bakery']);
    await user.click(options[0]);
    expect(screen.getByRole('combobox', { name: 'Company to sync' }).textContent).toBe('Sunrise Bakery');
    expect((screen.getByRole('button', { name: 'Start Sync' }) as HTMLButtonElement).disabled).toBe(false);
    expect(gql.operations).toEqual([]);
  });

  it('says so when none is connected', () => {
    dialog([{ id: 2, name: 'Pinecrest Dental', qbConnectionStatus: 'disconnected' }]);
    expect(screen.getByText(/No company is connected to QuickBooks/)).toBeTruthy();
  });
});

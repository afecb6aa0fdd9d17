// The OAuth dialog's clock: the 1-second poll notices a popup closed without an answer,
// listener and poll give up after 600000 ms, and success closes the dialog 1 s later. Chromium
// proves the real popup (e2e/companies.e2e.test.ts); here the popup is a stand-in so time can jump.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import { createGraphQLMock, GraphQLTestProvider } from '../../../testing/graphql-mock';
import { QbCredentialsQuery, StartQbOAuth } from '../api/companies';
import { QbOAuthDialog } from './qb-oauth-dialog';

const popup = { closed: false };
let gql = createGraphQLMock();

beforeEach(() => {
  vi.useFakeTimers({ shouldAdvanceTime: true });
  popup.closed = false;
  resetToasts();
  gql = createGraphQLMock()
    .on(QbCredentialsQuery, { qbCredentials: { hasCredentials: false, qbClientId: null, qbIsSandbox: true } })
    .on(StartQbOAuth, { startQbOAuth: 'https://appcenter.example/connect?state=x' });
  vi.stubGlobal(
    'open',
    vi.fn(() => popup),
  );
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function startFlow(onOpenChange = vi.fn(), onChanged = vi.fn()) {
  render(
    <GraphQLTestProvider mock={gql}>
      <QbOAuthDialog
        companyId={4}
        companyName="Acme"
        open
        onOpenChange={onOpenChange}
        onChanged={onChanged}
      />
      <Toaster />
    </GraphQLTestProvider>,
  );
  fireEvent.change(screen.getByLabelText('Client ID'), { target: { value: 'client-1' } });
  fireEvent.change(screen.getByLabelText('Client Secret'), { target: { value: 'secret-1' } });
  fireEvent.click(screen.getByRole('button', { name: 'Start OAuth Flow' }));
  await screen.findByText('Waiting for QuickBooks authorization in the popup window...');
  expect(window.open).toHaveBeenCalledWith(
    'https://appcenter.example/connect?state=x',
    'qb-oauth',
    expect.stringMatching(/^width=600,height=700,/),
  );
  expect(gql.calls(StartQbOAuth)).toEqual([
    {
      companyId: 4,
      qbClientId: 'client-1',
      qbClientSecret: 'secret-1',
      qbIsSandbox: true,
      qbCallbackUrl: `${window.location.origin}/api/company/companies/qb-oauth/callback`,
    },
  ]);
  return { onOpenChange, onChanged };
}

describe('QbOAuthDialog', () => {
  it('asks to check the status when the popup closes without an answer', async () => {
    await startFlow();
    await act(async () => vi.advanceTimersByTime(1000));
    expect(screen.queryByText('OAuth window closed')).toBeNull();
    popup.closed = true;
    await act(async () => vi.advanceTimersByTime(1000));
    expect(screen.getByText('OAuth window closed')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Start OAuth Flow' })).toBeTruthy();
  });

  it('gives up after ten minutes, and then ignores a late answer', async () => {
    const { onOpenChange } = await startFlow();
    await act(async () => vi.advanceTimersByTime(599_000));
    expect(screen.queryByRole('alert')).toBeNull();
    await act(async () => vi.advanceTimersByTime(1_000));
    expect(screen.getByRole('alert').textContent).toContain('did not answer within 10 minutes');
    await act(async () => {
      window.dispatchEvent(
        new MessageEvent('message', { origin: window.location.origin, data: { type: 'QB_OAUTH_SUCCESS' } }),
      );
    });
    await act(async () => vi.advanceTimersByTime(2_000));
    expect(onOpenChange).not.toHaveBeenCalled();
  });

  it('on QB_OAUTH_SUCCESS from its own origin says so and closes 1 s later; other origins are ignored', async () => {
    const { onOpenChange, onChanged } = await startFlow();
    await act(async () => {
      window.dispatchEvent(
        new MessageEvent('message', { origin: 'https://evil.example', data: { type: 'QB_OAUTH_SUCCESS' } }),
      );
    });
    expect(screen.queryByText('Success!')).toBeNull();
    await act(async () => {
      window.dispatchEvent(
        new MessageEvent('message', { origin: window.location.origin, data: { type: 'QB_OAUTH_SUCCESS' } }),
      );
    });
    expect(screen.getByText('Success!')).toBeTruthy();
    expect(onChanged).toHaveBeenCalled();
    await act(async () => vi.advanceTimersByTime(900));
    expect(onOpenChange).not.toHaveBeenCalled();
    await act(async () => vi.advanceTimersByTime(100));
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });

  it('shows QB_OAUTH_ERROR as OAuth Failed, in a toast and an alert', async () => {
    await startFlow();
    await act(async () => {
      window.dispatchEvent(
        new MessageEvent('message', {
          origin: window.location.origin,
          data: { type: 'QB_OAUTH_ERROR', error: 'The user did not allow access' },
        }),
      );
    });
    expect(screen.getByText('OAuth Failed')).toBeTruthy();
    expect(screen.getAllByText('The user did not allow access').length).toBe(2);
  });
});

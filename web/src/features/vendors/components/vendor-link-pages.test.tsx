// The vendor link pages in jsdom, against a scripted server: opening one only reads (GET); "This
// was not me" acts on its press alone and shows the server's words; the micro-deposit page sends the
// two amounts, shows the tries left after a wrong pair and the confirmation after the right one; a
// link the server refuses shows its refusal and no button.
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { json, mockFetch } from '../../../testing/fetch-mock';
import { MicroDepositsPage } from './micro-deposits-page';
import { NotMePage } from './not-me-page';

const change = {
  companyName: 'Guarded Goods',
  vendorName: 'Paper Supply Co',
  accountType: 'checking',
  previousRoutingNumber: '*****0015',
  previousAccountNumber: '****1004',
  routingNumber: '*****0021',
  accountNumber: '****6666',
  madeBy: 'Mona Maker',
  madeAt: '2026-12-06T10:00:00.000Z',
  status: 'pending',
  canAct: true,
  note: null,
  expiresAt: '2026-12-20T10:00:00.000Z',
};

const show = (path: string, page: ReactElement) =>
  render(<MemoryRouter initialEntries={[path]}>{page}</MemoryRouter>);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the "this was not me" page', () => {
  it('reads the change, and freezes it only when the button is pressed', async () => {
    const { calls } = mockFetch((call) =>
      call.method === 'GET'
        ? json(200, { success: true, data: change })
        : json(200, {
            success: true,
            data: { status: 'frozen', noAction: false, message: 'Thank you. The change is stopped.' },
          }),
    );
    show('/vendor-banking/not-me?token=tok-1', <NotMePage />);
    expect(await screen.findByText('Mona Maker')).toBeTruthy();
    expect(screen.getByText('Account ****6666, routing *****0021 (checking)')).toBeTruthy();
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'GET /api/vendors/banking-links/not-me?token=tok-1',
    ]);
    fireEvent.click(screen.getByRole('button', { name: 'This was not me: stop this change' }));
    expect((await screen.findByRole('status')).textContent).toBe('Thank you. The change is stopped.');
    expect(calls.at(-1)).toMatchObject({
      method: 'POST',
      url: '/api/vendors/banking-links/not-me?token=tok-1',
    });
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('shows the server’s refusal of a link, and no button', async () => {
    mockFetch(() =>
      json(403, { success: false, error: 'This link has expired', message: 'This link has expired' }),
    );
    show('/vendor-banking/not-me?token=old', <NotMePage />);
    expect((await screen.findByRole('alert')).textContent).toBe('This link has expired');
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('says why a link that can no longer act does nothing', async () => {
    mockFetch(() =>
      json(200, {
        success: true,
        data: { ...change, status: 'frozen', canAct: false, note: 'Already reported.' },
      }),
    );
    show('/vendor-banking/not-me?token=tok-2', <NotMePage />);
    expect(await screen.findByText('Already reported.')).toBeTruthy();
    expect(screen.queryByRole('button')).toBeNull();
  });
});

describe('the micro-deposit page', () => {
  it('sends both amounts, shows the tries left after a wrong pair, and the confirmation after the right one', async () => {
    const answers = [
      { outcome: 'wrong', triesLeft: 2, message: 'Those amounts do not match. 2 tries left.' },
      { outcome: 'confirmed', triesLeft: 2, message: 'Thank you: the new bank account is confirmed.' },
    ];
    const { calls } = mockFetch((call) =>
      call.method === 'GET'
        ? json(200, {
            success: true,
            data: { ...change, triesLeft: 3, effectiveDate: '2026-12-07', verification: 'open' },
          })
        : json(200, { success: true, data: answers.shift() }),
    );
    show('/vendor-banking/micro-deposits?token=md-1', <MicroDepositsPage />);
    expect((await screen.findByTestId('tries-left')).textContent).toBe('3 tries left');
    const enter = async (a: string, b: string) => {
      fireEvent.change(screen.getByLabelText('First amount'), { target: { value: a } });
      fireEvent.change(screen.getByLabelText('Second amount'), { target: { value: b } });
      fireEvent.click(screen.getByRole('button', { name: 'Confirm the amounts' }));
    };
    await enter('0.12', '0.34');
    expect((await screen.findByRole('alert')).textContent).toBe('Those amounts do not match. 2 tries left.');
    expect(screen.getByTestId('tries-left').textContent).toBe('2 tries left');
    expect(calls.at(-1)).toMatchObject({
      method: 'POST',
      url: '/api/vendors/banking-links/micro-deposits?token=md-1',
      body: { amounts: ['0.12', '0.34'] },
    });
    await enter('0.34', '0.21');
    expect((await screen.findByRole('status')).textContent).toBe(
      'Thank you: the new bank account is confirmed.',
    );
    await waitFor(() => expect(screen.queryByRole('button')).toBeNull());
  });
});

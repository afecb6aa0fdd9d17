// The detail's "Export audit bundle" in jsdom: shown to ADMIN and MODERATOR only (the roles of
// 'approvals.audit'); a click GETs the bundle on the REST path with the bearer token, saves it under
// the server's file name and tells the page (which re-reads the history); a refusal is said in a
// toast and the page is not told.
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import { captureDownloads } from '../../../testing/downloads';
import { json, mockFetch } from '../../../testing/fetch-mock';
import type { Role } from '../../../types/api';
import { AuditExportButton } from './audit-export-button';

const ID = 'bbbbbbbb-1111-2222-3333-444444444444';

function show(role: Role | null, onExported = vi.fn()) {
  render(
    <>
      <AuditExportButton approvalId={ID} role={role} onExported={onExported} />
      <Toaster />
    </>,
  );
  return onExported;
}

let saved: string[] = [];
beforeEach(() => {
  saved = captureDownloads();
});
afterEach(() => {
  cleanup();
  resetToasts();
  localStorage.clear();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('AuditExportButton', () => {
  it.each<Role>(['ADMIN', 'MODERATOR'])('is shown to %s', (role) => {
    show(role);
    expect(screen.getByRole('button', { name: 'Export audit bundle' })).toBeTruthy();
  });

  it.each<[string, Role | null]>([
    ['USER', 'USER'],
    ['GUEST', 'GUEST'],
    ['no session', null],
  ])('is hidden for %s', (_, role) => {
    show(role);
    expect(screen.queryByRole('button', { name: 'Export audit bundle' })).toBeNull();
  });

  it('downloads the bundle with the bearer token under the server’s name, then tells the page', async () => {
    localStorage.setItem('auth_token', 'tok-1');
    const { calls } = mockFetch(
      () =>
        new Response('{"format":"billflow-audit-bundle/1"}\n', {
          status: 200,
          headers: {
            'content-type': 'application/json',
            'content-disposition': `attachment; filename="audit-${ID}.json"`,
          },
        }),
    );
    const onExported = show('MODERATOR');
    await userEvent.click(screen.getByRole('button', { name: 'Export audit bundle' }));
    await screen.findByText('Audit bundle downloaded');
    expect(calls.map((c) => [c.method, c.url])).toEqual([
      ['GET', `/api/bill-approval/approvals/${ID}/audit-bundle`],
    ]);
    expect(calls[0].headers.get('Authorization')).toBe('Bearer tok-1');
    expect(saved).toEqual([`audit-${ID}.json`]);
    expect(onExported).toHaveBeenCalledTimes(1);
  });

  it('says a refusal in a toast and does not tell the page', async () => {
    mockFetch(() =>
      json(403, {
        success: false,
        error: 'You do not have permission to perform this action',
        message: 'You do not have permission to perform this action',
        code: 'FORBIDDEN',
      }),
    );
    const onExported = show('ADMIN');
    await userEvent.click(screen.getByRole('button', { name: 'Export audit bundle' }));
    await screen.findByText('Export failed');
    expect(screen.getByText('You do not have permission to perform this action')).toBeTruthy();
    expect(saved).toEqual([]);
    expect(onExported).not.toHaveBeenCalled();
    expect(screen.getByRole('button', { name: 'Export audit bundle' })).toHaveProperty('disabled', false);
  });
});

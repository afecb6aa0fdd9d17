import { describe, expect, it } from 'vitest';
import { changeActions } from './banking-change-rules';

describe('changeActions', () => {
  const pending = { status: 'pending', requestedById: 41 };

  it('offers Approve and Reject on a pending change to an ADMIN or MODERATOR other than its maker', () => {
    for (const role of ['ADMIN', 'MODERATOR'] as const)
      expect(changeActions(pending, { id: 7, role })).toEqual({
        approve: true,
        reject: true,
        ownChange: false,
      });
  });

  it('never offers its maker Approve', () => {
    expect(changeActions(pending, { id: 41, role: 'ADMIN' })).toEqual({
      approve: false,
      reject: true,
      ownChange: true,
    });
  });

  it('offers a frozen change only for rejection, and a decided one for nothing', () => {
    expect(
      changeActions({ status: 'frozen', requestedById: 41 }, { id: 7, role: 'MODERATOR' }),
    ).toMatchObject({
      approve: false,
      reject: true,
    });
    for (const status of ['approved', 'rejected', 'live'])
      expect(changeActions({ status, requestedById: 41 }, { id: 7, role: 'ADMIN' })).toMatchObject({
        approve: false,
        reject: false,
      });
  });

  it('offers Approve of a bank’s notification of change to an ADMIN only', () => {
    const noc = { status: 'pending', requestedById: null, source: 'noc' };
    expect(changeActions(noc, { id: 7, role: 'ADMIN' })).toMatchObject({ approve: true, reject: true });
    expect(changeActions(noc, { id: 7, role: 'MODERATOR' })).toMatchObject({ approve: false, reject: true });
  });

  it('offers nothing to the roles that do not decide', () => {
    for (const role of ['USER', 'GUEST'] as const)
      expect(changeActions(pending, { id: 7, role })).toMatchObject({ approve: false, reject: false });
    expect(changeActions(pending, null)).toMatchObject({ approve: false, reject: false });
  });
});

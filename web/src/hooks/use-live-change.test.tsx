// Every push reaches the latest callback once, with the change picked out of it; a paused hook does
// not subscribe.
import { act, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { type Client, type OperationResult, Provider } from 'urql';
import { describe, expect, it, vi } from 'vitest';
import { makeSubject } from 'wonka';
import { graphql } from '../lib/graphql';
import { useLiveChange } from './use-live-change';

const Changed = graphql(`
  subscription LiveChangeTest($id: Int) {
    companyChanged(id: $id) {
      id
      type
    }
  }
`);

function socket() {
  const pushes = makeSubject<OperationResult>();
  const executeSubscription = vi.fn((_request: unknown) => pushes.source);
  const client = { executeSubscription } as unknown as Client;
  const wrapper = ({ children }: { children: ReactNode }) => <Provider value={client}>{children}</Provider>;
  const push = (change: { id: number; type: string }) =>
    act(() =>
      pushes.next({
        operation: executeSubscription.mock.calls[0]?.[0],
        data: { companyChanged: change },
        stale: false,
        hasNext: true,
      } as unknown as OperationResult),
    );
  return { executeSubscription, wrapper, push };
}

describe('useLiveChange', () => {
  it('hands each push to the latest callback, picked out of the data', () => {
    const { wrapper, push } = socket();
    const first = vi.fn();
    const second = vi.fn();
    const { rerender } = renderHook(
      ({ onChange }) => useLiveChange(Changed, { id: 7 }, (d) => d.companyChanged, onChange),
      { wrapper, initialProps: { onChange: first } },
    );
    push({ id: 7, type: 'CompanyUpdated' });
    expect(first).toHaveBeenCalledWith({ id: 7, type: 'CompanyUpdated' });
    rerender({ onChange: second });
    push({ id: 7, type: 'CompanyDeleted' });
    expect(second).toHaveBeenCalledWith({ id: 7, type: 'CompanyDeleted' });
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).toHaveBeenCalledTimes(1);
  });

  it('does not subscribe while paused', () => {
    const { wrapper, executeSubscription } = socket();
    renderHook(() => useLiveChange(Changed, { id: null }, (d) => d.companyChanged, vi.fn(), true), {
      wrapper,
    });
    expect(executeSubscription).not.toHaveBeenCalled();
  });
});

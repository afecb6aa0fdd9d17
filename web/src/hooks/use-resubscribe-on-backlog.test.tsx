// A stream the server ended for falling behind (LIVE_BACKLOG) makes live screens re-read and the
// subscription start again, once per such error; other errors do neither.
import { renderHook } from '@testing-library/react';
import { CombinedError } from 'urql';
import { describe, expect, it, vi } from 'vitest';
import { liveResync } from '../lib/live-resync';
import { isLiveBacklog, useResubscribeOnBacklog } from './use-resubscribe-on-backlog';

const backlog = () =>
  new CombinedError({
    graphQLErrors: [{ message: 'Live updates fell behind', extensions: { code: 'LIVE_BACKLOG' } }],
  });

describe('useResubscribeOnBacklog', () => {
  it('re-reads and subscribes again once per backlog error', () => {
    const resync = vi.fn();
    const off = liveResync.subscribe(resync);
    const resubscribe = vi.fn();
    const { rerender } = renderHook(({ error }) => useResubscribeOnBacklog(error, resubscribe), {
      initialProps: { error: undefined as CombinedError | undefined },
    });
    expect(resubscribe).not.toHaveBeenCalled();
    const error = backlog();
    rerender({ error });
    rerender({ error });
    expect(resubscribe).toHaveBeenCalledTimes(1);
    expect(resync).toHaveBeenCalledTimes(1);
    rerender({ error: backlog() });
    expect(resubscribe).toHaveBeenCalledTimes(2);
    off();
  });

  it('leaves other errors alone', () => {
    const resubscribe = vi.fn();
    const other = new CombinedError({
      graphQLErrors: [{ message: 'Forbidden', extensions: { code: 'FORBIDDEN' } }],
    });
    expect(isLiveBacklog(other)).toBe(false);
    renderHook(() => useResubscribeOnBacklog(other, resubscribe));
    expect(resubscribe).not.toHaveBeenCalled();
  });
});

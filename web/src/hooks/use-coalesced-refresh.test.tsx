// A single change re-reads at once; a burst costs one re-read at its start and one when its window
// ends; nothing runs after the screen is gone.
import { renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useCoalescedRefresh } from './use-coalesced-refresh';

describe('useCoalescedRefresh', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('re-reads at once for a single change', () => {
    const refresh = vi.fn();
    const { result } = renderHook(() => useCoalescedRefresh(refresh, 150));
    result.current();
    expect(refresh).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1000);
    expect(refresh).toHaveBeenCalledTimes(1);
  });

  it('coalesces a burst into one re-read at its start and one when the window ends', () => {
    const refresh = vi.fn();
    const { result } = renderHook(() => useCoalescedRefresh(refresh, 150));
    for (let i = 0; i < 100; i++) result.current();
    expect(refresh).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(149);
    expect(refresh).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(refresh).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(1000);
    expect(refresh).toHaveBeenCalledTimes(2);
    // A change after the quiet window shows at once again.
    result.current();
    expect(refresh).toHaveBeenCalledTimes(3);
  });

  it('keeps re-reading once a window while changes keep coming, with the latest callback', () => {
    const first = vi.fn();
    const second = vi.fn();
    const { result, rerender } = renderHook(({ cb }) => useCoalescedRefresh(cb, 100), {
      initialProps: { cb: first },
    });
    result.current();
    rerender({ cb: second });
    for (let t = 0; t < 5; t++) {
      result.current();
      vi.advanceTimersByTime(100);
    }
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).toHaveBeenCalledTimes(5);
  });

  it('runs nothing after unmount', () => {
    const refresh = vi.fn();
    const { result, unmount } = renderHook(() => useCoalescedRefresh(refresh, 150));
    result.current();
    result.current();
    unmount();
    vi.advanceTimersByTime(1000);
    expect(refresh).toHaveBeenCalledTimes(1);
  });
});

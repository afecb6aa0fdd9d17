import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useRowSelection } from './use-row-selection';

describe('useRowSelection', () => {
  it('ticks and unticks rows one by one and a page at a time, keeping the other pages', () => {
    const { result } = renderHook(() => useRowSelection<number>());
    expect(result.current.allOf([1, 2])).toBe(false);
    expect(result.current.allOf([])).toBe(false);

    act(() => result.current.toggle(1, true));
    act(() => result.current.toggle(9, true));
    expect([...result.current.selected]).toEqual([1, 9]);
    expect(result.current.allOf([1, 2])).toBe(false);

    act(() => result.current.setMany([1, 2, 3], true));
    expect(result.current.allOf([1, 2, 3])).toBe(true);
    expect(result.current.selected.has(9)).toBe(true);

    act(() => result.current.setMany([1, 2, 3], false));
    expect([...result.current.selected]).toEqual([9]);

    act(() => result.current.toggle(9, false));
    expect(result.current.selected.size).toBe(0);
  });

  it('retains (the same set when nothing drops out) and clears', () => {
    const { result } = renderHook(() => useRowSelection<string>());
    act(() => result.current.setMany(['a', 'b', 'c'], true));
    const before = result.current.selected;
    act(() => result.current.retain(() => true));
    expect(result.current.selected).toBe(before);

    act(() => result.current.retain((id) => id !== 'b'));
    expect([...result.current.selected]).toEqual(['a', 'c']);

    act(() => result.current.clear());
    expect(result.current.selected.size).toBe(0);
  });
});

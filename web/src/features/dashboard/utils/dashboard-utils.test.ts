import { describe, expect, it } from 'vitest';
import type { ActivityItem } from '../api/dashboard';
import { mergeActivity } from './activity';
import { formatLocalTimestamp, formatUptime } from './format';

const item = (id: string, description = `event ${id}`): ActivityItem => ({
  id,
  type: 'UserSignedIn',
  description,
  timestamp: '2024-01-05T10:00:00.000Z',
});

describe('formatUptime', () => {
  it('shows hours and minutes', () => {
    expect(formatUptime(0)).toBe('0h 0m');
    expect(formatUptime(59)).toBe('0h 0m');
    expect(formatUptime(60)).toBe('0h 1m');
    expect(formatUptime(3725)).toBe('1h 2m');
    expect(formatUptime(90_061)).toBe('25h 1m');
  });

  it('treats missing or negative values as zero', () => {
    expect(formatUptime(Number.NaN)).toBe('0h 0m');
    expect(formatUptime(-5)).toBe('0h 0m');
  });
});

describe('formatLocalTimestamp', () => {
  it('formats in the local time zone', () => {
    const iso = '2024-01-05T10:00:00.000Z';
    expect(formatLocalTimestamp(iso)).toBe(new Date(iso).toLocaleString());
  });

  it("shows 'Invalid date' for text that is no date", () => {
    expect(formatLocalTimestamp('not a date')).toBe('Invalid date');
    expect(formatLocalTimestamp('')).toBe('Invalid date');
  });
});

describe('mergeActivity', () => {
  it('puts live lines first, drops duplicates and keeps at most 5', () => {
    const fetched = ['5', '4', '3', '2', '1'].map((id) => item(id));
    const live = [item('7'), item('6'), item('5')];
    expect(mergeActivity(live, fetched).map((a) => a.id)).toEqual(['7', '6', '5', '4', '3']);
  });

  it('honours another limit and an empty live list', () => {
    const fetched = ['3', '2', '1'].map((id) => item(id));
    expect(mergeActivity([], fetched, 2).map((a) => a.id)).toEqual(['3', '2']);
    expect(mergeActivity([], [])).toEqual([]);
  });

  it('keeps newest first when a fetch already holds a line whose push is still on its way', () => {
    const at = (id: string, second: number) => ({
      ...item(id),
      timestamp: `2024-01-05T10:00:0${second}.000Z`,
    });
    // Live holds 'deactivated' (pushed earlier); the fetch already has the newer 'created' line.
    const live = [at('deactivated', 2)];
    const fetched = [at('created', 3), at('deactivated', 2), at('signed-in', 1)];
    expect(mergeActivity(live, fetched).map((a) => a.id)).toEqual(['created', 'deactivated', 'signed-in']);
  });
});

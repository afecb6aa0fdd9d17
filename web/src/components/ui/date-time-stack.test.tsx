import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { DateTimeStack } from './date-time-stack';

afterEach(cleanup);

describe('DateTimeStack', () => {
  it('shows the date over the time, with the instant machine-readable', () => {
    const iso = '2026-11-20T10:05:00.000Z';
    const { container } = render(<DateTimeStack iso={iso} />);
    const time = container.querySelector('time');
    expect(time?.getAttribute('datetime')).toBe(iso);
    const [date, clock] = [...(time?.querySelectorAll('span') ?? [])].map((s) => s.textContent);
    const d = new Date(iso);
    expect(date).toBe(d.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' }));
    expect(clock).toBe(d.toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' }));
  });

  it('shows the given placeholder for no date or an unreadable one', () => {
    const { container, rerender } = render(<DateTimeStack iso={null} empty="N/A" />);
    expect(container.textContent).toBe('N/A');
    expect(container.querySelector('time')).toBeNull();
    rerender(<DateTimeStack iso="not a date" />);
    expect(container.textContent).toBe('—');
  });
});

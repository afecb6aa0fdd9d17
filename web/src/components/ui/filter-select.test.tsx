import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FilterSelect } from './filter-select';

afterEach(cleanup);
// jsdom lacks what Radix's Select calls on open.
beforeAll(() => {
  Element.prototype.hasPointerCapture ??= () => false;
  Element.prototype.releasePointerCapture ??= () => {};
  Element.prototype.scrollIntoView ??= () => {};
});

type Status = 'ACTIVE' | 'INACTIVE';

function Harness({ initial, onChange }: { initial: Status | ''; onChange: (v: Status | '') => void }) {
  const [value, setValue] = useState<Status | ''>(initial);
  return (
    <FilterSelect
      id="status-filter"
      label="Status"
      allLabel="All statuses"
      value={value}
      onChange={(v) => {
        setValue(v);
        onChange(v);
      }}
      options={[
        { value: 'ACTIVE', label: 'Active' },
        { value: 'INACTIVE', label: 'Inactive' },
      ]}
    />
  );
}

describe('FilterSelect', () => {
  it('shows "all" for an empty value, gives a chosen value, and gives back an empty one for "all"', async () => {
    const onChange = vi.fn();
    render(<Harness initial="" onChange={onChange} />);
    const user = userEvent.setup();
    const trigger = screen.getByRole('combobox', { name: 'Status' });
    expect(trigger.textContent).toBe('All statuses');
    expect(screen.getByText('Status').getAttribute('for')).toBe('status-filter');

    await user.click(trigger);
    await screen.findByRole('option', { name: 'Inactive' });
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual([
      'All statuses',
      'Active',
      'Inactive',
    ]);
    await user.click(screen.getByRole('option', { name: 'Inactive' }));
    expect(onChange).toHaveBeenLastCalledWith('INACTIVE');
    expect(screen.getByRole('combobox', { name: 'Status' }).textContent).toBe('Inactive');

    await user.click(screen.getByRole('combobox', { name: 'Status' }));
    await user.click(await screen.findByRole('option', { name: 'All statuses' }));
    expect(onChange).toHaveBeenLastCalledWith('');
    expect(screen.getByRole('combobox', { name: 'Status' }).textContent).toBe('All statuses');
  });

  it('shows the chosen option for a value given', () => {
    render(<Harness initial="ACTIVE" onChange={() => {}} />);
    expect(screen.getByRole('combobox', { name: 'Status' }).textContent).toBe('Active');
  });
});

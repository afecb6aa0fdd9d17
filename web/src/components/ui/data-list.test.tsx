import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Column, DataList } from './data-list';
import { FormField } from './form-field';
import { TextField } from './text-field';

interface Row {
  id: number;
  name: string;
}
const columns: Column<Row>[] = [
  { id: 'name', header: 'Name', sortKey: 'name', cell: (r) => r.name },
  { id: 'id', header: 'Number', cell: (r) => `#${r.id}` },
];

afterEach(cleanup);

describe('DataList', () => {
  const base = {
    errorTitle: (e: Error) => `Error loading rows: ${e.message}`,
    loadingText: 'Loading rows...',
    empty: { title: 'No rows found' },
    columns,
    rowKey: (r: Row) => r.id,
  };

  it('shows loading, then the error with Retry, then empty', async () => {
    const retry = vi.fn();
    const view = render(<DataList<Row, number> {...base} rows={undefined} />);
    expect(screen.getByText('Loading rows...')).toBeTruthy();
    view.rerender(
      <DataList<Row, number> {...base} rows={undefined} error={new Error('down')} onRetry={retry} />,
    );
    expect(screen.getByRole('alert').textContent).toContain('Error loading rows: down');
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(retry).toHaveBeenCalledOnce();
    view.rerender(<DataList<Row, number> {...base} rows={[]} />);
    expect(screen.getByText('No rows found')).toBeTruthy();
  });

  it('shows the rows, sorts by a header, pages, and runs a row action', async () => {
    const onSort = vi.fn();
    const onPage = vi.fn();
    const view = vi.fn();
    render(
      <DataList<Row, number>
        {...base}
        rows={[
          { id: 1, name: 'Ada' },
          { id: 2, name: 'Grace' },
        ]}
        sort={{ key: 'name', direction: 'asc' }}
        onSort={onSort}
        rowActions={(r) => [
          { label: 'View Details', onSelect: () => view(r.id) },
          { label: 'Delete', destructive: true, separated: true, onSelect: () => {} },
        ]}
        actionsLabel={(r) => `Actions for ${r.name}`}
        paging={{ info: { page: 1, limit: 2, total: 3, totalPages: 2 }, noun: 'rows', onPageChange: onPage }}
      />,
    );
    expect(screen.getAllByRole('row')).toHaveLength(3);
    expect(screen.getByRole('columnheader', { name: /Name/ }).getAttribute('aria-sort')).toBe('ascending');
    await userEvent.click(screen.getByRole('button', { name: /Name/ }));
    expect(onSort).toHaveBeenCalledWith('name');
    expect(screen.getByText('Showing 1 to 2 of 3 rows')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: /Next/ }));
    expect(onPage).toHaveBeenCalledWith(2);
    await userEvent.click(screen.getByRole('button', { name: 'Actions for Grace' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'View Details' }));
    expect(view).toHaveBeenCalledWith(2);
  });

  it('selects rows with checkboxes', async () => {
    const toggle = vi.fn();
    const setMany = vi.fn();
    render(
      <DataList<Row, number>
        {...base}
        rows={[{ id: 1, name: 'Ada' }]}
        selection={{
          selected: new Set([1]),
          toggle,
          setMany,
          allOf: () => true,
          label: (id) => `Select row ${id}`,
          allLabel: 'Select all rows on this page',
        }}
      />,
    );
    const row = screen.getAllByRole('row')[1];
    expect(row.getAttribute('data-state')).toBe('selected');
    await userEvent.click(within(row).getByRole('checkbox', { name: 'Select row 1' }));
    expect(toggle).toHaveBeenCalledWith(1, false);
    await userEvent.click(screen.getByRole('checkbox', { name: 'Select all rows on this page' }));
    expect(setMany).toHaveBeenCalledWith([1], false);
  });
});

describe('form fields', () => {
  it('marks a required field and describes the control by its hint and error', () => {
    render(
      <>
        <TextField id="email" label="Email Address" required error="Email is required" />
        <FormField id="role" label="Role" hint="What the user may do">
          {(control) => <select {...control} />}
        </FormField>
      </>,
    );
    const email = screen.getByLabelText('Email Address *');
    expect(email.getAttribute('aria-required')).toBe('true');
    expect(email.getAttribute('aria-invalid')).toBe('true');
    expect(email.getAttribute('aria-describedby')).toBe('email-error');
    expect(screen.getByText('Email is required').id).toBe('email-error');
    const role = screen.getByLabelText('Role');
    expect(role.getAttribute('aria-describedby')).toBe('role-hint');
    expect(role.getAttribute('aria-invalid')).toBeNull();
  });
});

import { act, cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Badge } from './badge';
import { PaginationFooter, showingText } from './pagination';
import {
  nextSort,
  SortableTableHead,
  type SortState,
  sortRows,
  Table,
  TableBody,
  TableHeader,
  TableRow,
} from './table';
import { TextField } from './text-field';
import Toaster from './toaster';
import { resetToasts, toast } from './use-toast';

afterEach(() => {
  cleanup();
  resetToasts();
  vi.useRealTimers();
});

function SortHarness() {
  const [sort, setSort] = useState<SortState<'name'>>(null);
  return (
    <Table>
      <TableHeader>
        <TableRow>
          <SortableTableHead sortKey="name" sort={sort} onSortChange={setSort}>
            Name
          </SortableTableHead>
        </TableRow>
      </TableHeader>
      <TableBody />
    </Table>
  );
}

describe('sorting', () => {
  it('cycles ascending, descending, none', () => {
    let sort: SortState = null;
    sort = nextSort(sort, 'name');
    expect(sort).toEqual({ key: 'name', direction: 'asc' });
    sort = nextSort(sort, 'name');
    expect(sort).toEqual({ key: 'name', direction: 'desc' });
    expect(nextSort(sort, 'name')).toBeNull();
    expect(nextSort(sort, 'email')).toEqual({ key: 'email', direction: 'asc' });
  });

  it('sorts a copy, keeps empty values last and ties stable', () => {
    const rows = [
      { n: 'b', v: 2 },
      { n: 'a', v: null },
      { n: 'c', v: 10 },
      { n: 'd', v: 2 },
    ];
    const get = (r: (typeof rows)[number], k: 'n' | 'v') => r[k];
    expect(sortRows(rows, { key: 'v', direction: 'asc' }, get).map((r) => r.n)).toEqual(['b', 'd', 'c', 'a']);
    expect(sortRows(rows, { key: 'v', direction: 'desc' }, get).map((r) => r.n)).toEqual([
      'c',
      'b',
      'd',
      'a',
    ]);
    expect(sortRows(rows, null, get)).toEqual(rows);
  });

  it('renders a header button with aria-sort', async () => {
    render(<SortHarness />);
    const header = screen.getByRole('columnheader');
    expect(header.getAttribute('aria-sort')).toBe('none');
    await userEvent.click(screen.getByRole('button', { name: 'Name' }));
    expect(header.getAttribute('aria-sort')).toBe('ascending');
    await userEvent.click(screen.getByRole('button', { name: 'Name' }));
    expect(header.getAttribute('aria-sort')).toBe('descending');
    await userEvent.click(screen.getByRole('button', { name: 'Name' }));
    expect(header.getAttribute('aria-sort')).toBe('none');
  });
});

describe('pagination footer', () => {
  it('says which rows are shown and pages', async () => {
    expect(showingText({ page: 2, limit: 10, total: 25 }, 'companies')).toBe(
      'Showing 11 to 20 of 25 companies',
    );
    expect(showingText({ page: 3, limit: 10, total: 25 }, 'companies')).toBe(
      'Showing 21 to 25 of 25 companies',
    );
    expect(showingText({ page: 1, limit: 10, total: 0 }, 'companies')).toBe('Showing 0 to 0 of 0 companies');
    expect(showingText({ page: 1, limit: 10, total: 1 }, 'companies')).toBe('Showing 1 to 1 of 1 company');
    expect(showingText({ page: 1, limit: 10, total: 1 }, 'vendors')).toBe('Showing 1 to 1 of 1 vendor');
    const onPageChange = vi.fn();
    render(
      <PaginationFooter
        pagination={{ page: 1, limit: 10, total: 25, totalPages: 3 }}
        noun="companies"
        onPageChange={onPageChange}
      />,
    );
    expect(screen.getByText('Page 1 of 3')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Previous' }) as HTMLButtonElement).disabled).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    expect(onPageChange).toHaveBeenCalledWith(2);
  });
});

describe('badge', () => {
  it('has a default and a destructive style', () => {
    render(
      <>
        <Badge>HEALTHY</Badge>
        <Badge variant="destructive">DEGRADED</Badge>
      </>,
    );
    expect(screen.getByText('HEALTHY').className).toContain('bg-primary');
    expect(screen.getByText('DEGRADED').className).toContain('bg-destructive');
  });
});

describe('toasts', () => {
  it('shows one at a time; a failure is a destructive toast titled "Error"', () => {
    render(<Toaster />);
    act(() => {
      toast.success('Company created successfully');
    });
    expect(screen.getByText('Company created successfully')).toBeTruthy();
    act(() => {
      toast.error('Failed to update assignment');
    });
    expect(screen.queryByText('Company created successfully')).toBeNull();
    const shown = screen.getAllByTestId('toast');
    expect(shown).toHaveLength(1);
    expect(shown[0].textContent).toContain('Error');
    expect(shown[0].textContent).toContain('Failed to update assignment');
    expect(shown[0].className).toContain('bg-destructive');
  });

  it('closes after 5 seconds by default', async () => {
    vi.useFakeTimers();
    render(<Toaster />);
    act(() => {
      toast({ title: 'Saved' });
    });
    expect(screen.getByText('Saved')).toBeTruthy();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(4_900);
    });
    expect(screen.queryByText('Saved')).toBeTruthy();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1_000);
    });
    expect(screen.queryByText('Saved')).toBeNull();
  });
});

describe('TextField', () => {
  it('labels its input, and marks it invalid and described by the message only while there is one', () => {
    const { rerender } = render(<TextField id="f-email" label="Email" value="" onChange={() => {}} />);
    const input = screen.getByLabelText('Email');
    expect(input.getAttribute('aria-invalid')).toBeNull();
    expect(input.getAttribute('aria-describedby')).toBeNull();
    rerender(<TextField id="f-email" label="Email" value="" onChange={() => {}} error="Email is required" />);
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(input.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
      'Email is required',
    );
  });
});

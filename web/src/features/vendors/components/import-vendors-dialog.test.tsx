// The CSV import's outcome as the user reads it: one vendor in the
// singular, one message per field for a row, and an exported file imported back says that the
// export masks the numbers and how to get the full ones. The upload stays plain HTTP (a file).
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { VendorImportResult } from '../api/vendors';
import { MASKED_ROW_ERROR } from '../utils/vendor-rules';
import { ImportVendorsDialog } from './import-vendors-dialog';

const upload = vi.fn<(file: File) => Promise<VendorImportResult>>();
vi.mock('../api/vendors', async (original) => ({
  ...(await original<typeof import('../api/vendors')>()),
  importVendors: (file: File, onProgress: (p: number) => void) => {
    onProgress(100);
    return upload(file);
  },
}));

beforeEach(() => upload.mockReset());
afterEach(cleanup);

const HEADER =
  'ID,Name,Company,QuickBooks ID,Email,Phone,Active,Routing Number,Account Number,Account Type,Bank Name';

async function importFile(lines: string[], result: VendorImportResult) {
  upload.mockResolvedValue(result);
  const onImported = vi.fn();
  render(<ImportVendorsDialog open onOpenChange={vi.fn()} onImported={onImported} />);
  const file = new File([[HEADER, ...lines].join('\n')], 'vendors-export.csv', { type: 'text/csv' });
  fireEvent.change(screen.getByLabelText('CSV file'), { target: { files: [file] } });
  fireEvent.click(screen.getByRole('button', { name: 'Upload' }));
  await screen.findByRole('status');
  expect(upload).toHaveBeenCalledWith(file);
  expect(onImported).toHaveBeenCalled();
}

describe('ImportVendorsDialog', () => {
  it('says "1 vendor updated" in the singular', async () => {
    await importFile(['1,Acme,Harbor,56,,,true,021000021,000987654321,checking,Chase'], {
      processed: 1,
      updated: 1,
      failed: 0,
      unchanged: 0,
      errors: [],
    });
    expect(screen.getByRole('status').textContent).toBe('1 vendor updated successfully');
    expect(screen.getByText('1 row read.')).toBeTruthy();
  });

  it('counts the changes held for approval apart: saved, not live', async () => {
    await importFile(
      [
        '1,Acme,Harbor,56,,,true,021000021,000987654321,checking,Chase',
        '2,Birch,Harbor,57,,,true,021000021,000987654322,checking,Chase',
      ],
      { processed: 2, updated: 2, failed: 0, unchanged: 0, held: 2, errors: [] },
    );
    expect(screen.getByRole('status').textContent).toBe('2 vendors updated successfully');
    expect(screen.getByTestId('import-held-note').textContent).toMatch(
      /^2 changes of bank details wait for approval: each goes live once another ADMIN or MODERATOR approves it/,
    );
  });

  it('shows an empty account number’s row with one message, not three', async () => {
    await importFile(['1,Acme,Harbor,56,,,true,021000021,,checking,Chase'], {
      processed: 1,
      updated: 0,
      failed: 1,
      unchanged: 0,
      errors: [
        {
          row: 2,
          error:
            'Account number is required; Account number may only contain letters, digits and dashes; Account number must have at least 5 digits',
        },
      ],
    });
    const errors = within(screen.getByTestId('import-errors'));
    expect(errors.getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Row 2: Account number is required',
    ]);
    expect(screen.queryByTestId('import-masked-note')).toBeNull();
  });

  it('says that an export masks the numbers when its file comes back, and how to get the full ones', async () => {
    await importFile(
      [
        '1,Acme,Harbor,56,,,true,*****0021,********4321,checking,Chase',
        '2,Beta,Harbor,57,,,true,•••••0021,•••• 9876,savings,Chase',
      ],
      {
        processed: 2,
        updated: 0,
        failed: 2,
        unchanged: 0,
        errors: [
          { row: 2, error: 'Enter the full routing and account numbers (an export masks them)' },
          { row: 3, error: 'Account number may only contain letters, digits and dashes' },
        ],
      },
    );
    expect(screen.getByRole('status').textContent).toBe('All 2 vendors failed to import');
    const note = screen.getByTestId('import-masked-note').textContent ?? '';
    expect(note).toMatch(
      /^2 rows have masked bank numbers\. A CSV export masks the routing and account numbers/,
    );
    expect(note).toMatch(/Show Full Numbers/);
    const errors = within(screen.getByTestId('import-errors'));
    expect(errors.getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      `Row 2: ${MASKED_ROW_ERROR}`,
      `Row 3: ${MASKED_ROW_ERROR}`,
    ]);
  });
});

// The tab names the screen ("Vendors · Billflow"), follows a name that arrives later (a company's,
// once read), and gives the product's bare name back when the page goes.
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { documentTitle, useDocumentTitle } from './use-document-title';

function Screen({ name }: { name: string | null }) {
  useDocumentTitle(name);
  return null;
}

afterEach(cleanup);

describe('useDocumentTitle', () => {
  it('names the screen, follows its name, and gives the bare name back when the page goes', () => {
    document.title = 'Billflow';
    const { rerender, unmount } = render(<Screen name={null} />);
    expect(document.title).toBe('Billflow');
    rerender(<Screen name="Company" />);
    expect(document.title).toBe('Company · Billflow');
    rerender(<Screen name="Sunrise Bakery" />);
    expect(document.title).toBe('Sunrise Bakery · Billflow');
    unmount();
    expect(document.title).toBe('Billflow');
  });

  it('writes the title as "screen · Billflow", the bare name for none', () => {
    expect(documentTitle('Approval 1234abcd')).toBe('Approval 1234abcd · Billflow');
    expect(documentTitle('  ')).toBe('Billflow');
    expect(documentTitle(undefined)).toBe('Billflow');
  });
});

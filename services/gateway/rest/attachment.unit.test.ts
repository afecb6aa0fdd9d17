// The invoice's file name comes from QuickBooks: any character may be in it.
import { describe, expect, it } from 'vitest';
import { attachment } from './attachment.js';

describe('Content-Disposition of a downloaded invoice', () => {
  it('keeps a plain name as it is', () => {
    expect(attachment('INV-1001.pdf')).toBe(
      `attachment; filename="INV-1001.pdf"; filename*=UTF-8''INV-1001.pdf`,
    );
  });

  it('gives a name beyond Latin-1 an ASCII fallback and its exact form, so Node accepts the header', () => {
    const value = attachment('Счёт №7 (final).pdf');
    expect(value).toMatch(/^[\x20-\x7e]+$/);
    expect(value).toContain('filename="');
    expect(decodeURIComponent(value.split("filename*=UTF-8''")[1])).toBe('Счёт №7 (final).pdf');
  });

  it('cannot break out of the quoted name', () => {
    expect(attachment('a"b\\c.pdf')).toContain('filename="a_b_c.pdf"');
  });
});

// Invisible (format, Unicode Cf) characters at the edges of typed text: a value
// made only of them is blank, and they do not survive at the edges; emoji sequences that need them
// inside (ZWJ) or at the end (tag sequences) stay whole.
import { describe, expect, it } from 'vitest';
import { RejectApprovalInput } from '../approvals/commands.js';
import { CompanyInput } from '../companies/commands.js';
import { ManagerInput } from '../managers/commands.js';
import { plainText } from './text-rules.js';

const text = plainText(100);

describe('plainText and format characters', () => {
  it.each([
    ['a zero-width space', '\u200B'],
    ['several zero-width characters', '\u200B\u200C\u200D\u2060'],
    ['a BOM and a soft hyphen', '\uFEFF\u00AD'],
    ['format characters between spaces', ' \u200B \u200E \u200F '],
  ])('reads %s alone as blank', (_, value) => {
    expect(text.parse(value)).toBe('');
  });

  it('trims format characters at the edges together with whitespace', () => {
    expect(text.parse('\u200BAcme Corp\u200B')).toBe('Acme Corp');
    expect(text.parse(' \uFEFF Acme \u00AD\u2060 ')).toBe('Acme');
    expect(text.parse('Acme\u200D')).toBe('Acme');
  });

  it('keeps emoji sequences whole: ZWJ inside, a tag sequence at the end', () => {
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
    expect(text.parse(`Team ${family}`)).toBe(`Team ${family}`);
    const england = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}';
    expect(text.parse(`Go ${england}`)).toBe(`Go ${england}`);
    expect(text.parse(`Go ${england}\u200B`)).toBe(`Go ${england}`);
    // Tag characters with no emoji before them are hidden text: trimmed like any other.
    expect(text.parse('Acme\u{E0041}\u{E0042}\u{E007F}')).toBe('Acme');
    expect(text.parse('\u2764\uFE0F')).toBe('\u2764\uFE0F');
  });

  it('refuses a rejection reason made only of invisible characters', () => {
    const r = RejectApprovalInput.safeParse({ rejectionReason: '\u200B\u200B' });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe('Please provide a reason for rejection');
  });

  it('refuses blank-looking required names, and stores names without invisible edges', () => {
    expect(CompanyInput.safeParse({ name: '\u200B', email: 'a@b.test' }).success).toBe(false);
    const company = CompanyInput.safeParse({ name: 'Acme\u200B' });
    expect(company.data?.name).toBe('Acme');
    const manager = ManagerInput.safeParse({ firstName: '\u200B', lastName: 'Lee', email: 'ann@b.test' });
    expect(manager.success).toBe(false);
  });
});

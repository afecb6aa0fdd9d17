// The return reason codes: every one Nacha assigns from R01 to R85 and R90, and the action the
// product takes on each (shared/reference/ach-returns.md §2).
import { describe, expect, it } from 'vitest';
import { isAccountLevelReturn, RETURN_CODES, returnAction, returnCode } from './return-codes.js';

// The numbers Nacha never assigned in R01–R85.
const UNASSIGNED = [48, 49, 54, 55, 56, 57, 58, 59, 60, 63, 64, 65, 66, 78, 79];
const code = (n: number) => `R${String(n).padStart(2, '0')}`;

describe('RETURN_CODES', () => {
  it('holds R01–R85 but the unassigned numbers, and R90', () => {
    const expected = [];
    for (let n = 1; n <= 85; n++) if (!UNASSIGNED.includes(n)) expected.push(code(n));
    expected.push('R90');
    expect([...RETURN_CODES.keys()]).toEqual(expected);
    for (const e of RETURN_CODES.values()) expect(e.description.length).toBeGreaterThan(5);
  });

  it('knows no other code', () => {
    for (const c of ['R00', 'R48', 'R63', 'R78', 'R86', 'R96', 'R97', 'r01', 'C01', 'R1', ''])
      expect(returnCode(c)).toBeUndefined();
  });

  it("classes each code by the reference's table", () => {
    const byAction = (action: string) =>
      [...RETURN_CODES.values()].filter((e) => e.action === action).map((e) => e.code);
    expect(byAction('block-account')).toEqual([
      'R02',
      'R03',
      'R04',
      'R12',
      'R13',
      'R16',
      'R20',
      'R28',
      'R90',
    ]);
    expect(byAction('investigate')).toEqual(['R06', 'R14', 'R15', 'R23', 'R24']);
    expect(byAction('our-file')).toEqual(['R17', 'R18', 'R19', 'R25', 'R26', 'R27', 'R32', 'R34', 'R36']);
    expect(byAction('dishonored')).toEqual(['R61', 'R62', 'R67', 'R68', 'R69', 'R70']);
    expect(byAction('contested')).toEqual(['R71', 'R72', 'R73', 'R74', 'R75', 'R76', 'R77']);
    expect(byAction('other')).toEqual(['R21', 'R22', 'R30', 'R31']);
    // Debit-only, or of SEC codes Billflow never sends: never on a vendor credit.
    for (const c of [
      'R01',
      'R05',
      'R07',
      'R08',
      'R09',
      'R10',
      'R11',
      'R29',
      'R33',
      'R35',
      'R37',
      'R47',
      'R51',
      'R85',
    ])
      expect(returnCode(c)?.action, c).toBe('impossible-on-credit');
  });

  it('investigates an R17 its addenda call QUESTIONABLE', () => {
    expect(returnAction('R17', '')).toBe('our-file');
    expect(returnAction('R17', 'AMOUNT FIELD')).toBe('our-file');
    expect(returnAction('R17', 'QUESTIONABLE')).toBe('investigate');
    expect(returnAction('R03', 'QUESTIONABLE')).toBe('block-account');
    expect(returnAction('R96', '')).toBeUndefined();
  });

  it('says which returns are about the account itself', () => {
    expect(isAccountLevelReturn('R02')).toBe(true);
    expect(isAccountLevelReturn('R03')).toBe(true);
    expect(isAccountLevelReturn('R28')).toBe(true);
    expect(isAccountLevelReturn('R01')).toBe(false);
    expect(isAccountLevelReturn('R23')).toBe(false);
    expect(isAccountLevelReturn('R96')).toBe(false);
  });
});

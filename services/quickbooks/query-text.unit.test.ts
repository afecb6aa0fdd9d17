// Strings in QuickBooks queries are escaped as Intuit documents: a backslash before an apostrophe
// (and before a backslash), never a doubled apostrophe; the simulator's parser reads them back.
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../tools/qbo-sandbox/query.js';
import { qbString, qbStringList } from './query-text.js';

describe('qbString', () => {
  it("escapes an apostrophe with a backslash: 'Dave\\'s'", () => {
    expect(qbString("Dave's")).toBe("'Dave\\'s'");
    expect(qbString("O'Brien-7")).toBe("'O\\'Brien-7'");
    expect(qbString('plain')).toBe("'plain'");
  });

  it('escapes a backslash too, so a value ending in one cannot end the string', () => {
    expect(qbString('C:\\')).toBe("'C:\\\\'");
    expect(qbString("x\\' or 1=1")).toBe("'x\\\\\\' or 1=1'");
  });

  it('round-trips through the simulator’s parser, one value per literal', () => {
    const values = ["O'Brien-7", "Dave's Diner", 'back\\slash', 'tail\\', "''", 'plain'];
    const q = parseQuery(`select * from Bill where DocNumber in (${qbStringList(values)})`);
    expect(q.where).toEqual([{ field: 'DocNumber', op: 'in', value: values }]);
    const one = parseQuery(`select * from Vendor where DisplayName = ${qbString("Dave's Diner")}`);
    expect(one.where[0].value).toBe("Dave's Diner");
  });
});

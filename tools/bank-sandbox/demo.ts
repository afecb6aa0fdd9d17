// The demo's bank: the ODFI of the demo company (Sunrise Bakery banks at 121000248, tools/seed.ts),
// one user with a password, and answers keyed by the demo vendors' account suffixes so a demo run
// meets a return of each common kind and the NOCs the product must apply.
import type { AnswerRule, BankUser } from './types.js';

export const DEMO_ODFI_ROUTING = '121000248';

export const demoBankUsers: BankUser[] = [
  { routing: DEMO_ODFI_ROUTING, username: 'billflow-demo', password: 'billflow-demo-bank' },
];

export const demoBankRules: AnswerRule[] = [
  // R03: no account / unable to locate; R02: account closed (reference/ach-returns.md §2).
  { match: { accountSuffix: '0003' }, answer: { kind: 'return', code: 'R03' } },
  { match: { accountSuffix: '0002' }, answer: { kind: 'return', code: 'R02' } },
  // C01: the account number corrected to the same number ending 0102.
  { match: { accountSuffix: '0101' }, answer: { kind: 'noc', code: 'C01', correctedAccountSuffix: '0102' } },
  // C05: the transaction code corrected, checking ↔ savings.
  { match: { accountSuffix: '0105' }, answer: { kind: 'noc', code: 'C05' } },
];

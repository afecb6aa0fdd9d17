// A company's control on bank detail changes as a decider (stream `bankingcontrol-<companyId>`): on by
// default, so a company that never set it holds every change of a vendor's account for a second look.
// Turning it off (or on) is an ADMIN's call, on record with a reason. Pure: times come on the command.
import type { BankingControlEvent } from '../../schema/vendors/events.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';

export interface BankingControl {
  /** A change of a vendor's routing number, account number or type waits for a second look. */
  enabled: boolean;
  /** How many days a change is flagged where money is decided (approvals, /bills, the detail). */
  flagDays: number;
}

export const DEFAULT_BANKING_CONTROL: BankingControl = { enabled: true, flagDays: 30 };

export type BankingControlCommand = {
  type: 'SetBankingControl';
  companyId: number;
  byUserId: number;
  reason: string;
  now: string;
} & BankingControl;

export const bankingControlDecider = {
  initialState: (): BankingControl => DEFAULT_BANKING_CONTROL,
  evolve: (_state: BankingControl, event: BankingControlEvent): BankingControl => ({
    enabled: event.data.enabled,
    flagDays: event.data.flagDays,
  }),
  decide(command: BankingControlCommand, state: BankingControl): BankingControlEvent[] {
    const { companyId, byUserId, reason, now, enabled, flagDays } = command;
    if (state.enabled === enabled && state.flagDays === flagDays) return [];
    if (state.enabled && !enabled && reason.trim() === '')
      throw new DomainError('VALIDATION', 'Please give a reason for turning the control off');
    return [
      { type: 'BankingChangeControlSet', data: { companyId, enabled, flagDays, byUserId, reason, at: now } },
    ];
  },
  streamId: (companyId: number) => `bankingcontrol-${companyId}`,
} satisfies Decider<BankingControl, BankingControlCommand, BankingControlEvent>;

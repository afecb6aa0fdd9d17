// One stream per lower-cased e-mail address (`useremail-<email>`): appending to it with the expected
// version makes "one user per e-mail" hold under concurrent creates without any lock or unique index
// on the write side.
import type { UserEvent } from '../../../schema/events/user.js';
import { DomainError } from '../errors.js';

export interface EmailClaimState {
  claimedBy: number | null;
}

export type EmailClaimCommand =
  | {
      type: 'ClaimEmail';
      email: string;
      userId: number;
      /** The current claim is stale (its holder does not hold the address: a crash half-way): take it over. */
      holderAbandoned?: boolean;
      now: string;
    }
  | { type: 'ReleaseEmail'; email: string; userId: number; now: string };

export const initialState = (): EmailClaimState => ({ claimedBy: null });

export function evolve(state: EmailClaimState, event: UserEvent): EmailClaimState {
  if (event.type === 'UserEmailClaimed') return { claimedBy: event.data.userId };
  if (event.type === 'UserEmailReleased' && state.claimedBy === event.data.userId) return { claimedBy: null };
  return state;
}

export function decide(command: EmailClaimCommand, state: EmailClaimState): UserEvent[] {
  if (command.type === 'ClaimEmail') {
    if (state.claimedBy === command.userId) return [];
    if (state.claimedBy !== null && !command.holderAbandoned) {
      throw new DomainError('CONFLICT', 'A user with this email already exists');
    }
    return [
      { type: 'UserEmailClaimed', data: { email: command.email, userId: command.userId, at: command.now } },
    ];
  }
  if (state.claimedBy !== command.userId) return [];
  return [
    { type: 'UserEmailReleased', data: { email: command.email, userId: command.userId, at: command.now } },
  ];
}

export const emailClaimDecider = {
  initialState,
  evolve,
  decide,
  streamId: (email: string) => `useremail-${email.toLowerCase()}`,
};

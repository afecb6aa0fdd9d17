// One stream per e-mail address (`useremail-<blind index>`, a keyed hash of the normalised address,
// so no stream id holds the address: services/privacy): appending to it with the expected
// version makes "one user per e-mail" hold under concurrent creates without any lock or unique index
// on the write side.
import type { UserEvent } from '../../schema/users/events.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';

export interface EmailClaimState {
  claimedBy: number | null;
  /** Events folded so far: the claim stream's version. */
  version: number;
}

/**
 * What a caller judged about the claim stream: who held it, as of which version. A take-over or a
 * release decides only on exactly that state, so two callers who judged the same stale claim cannot
 * both act on it (the second finds the version moved).
 */
export interface JudgedClaim {
  holder: number;
  version: number;
}

export type EmailClaimCommand =
  | {
      type: 'ClaimEmail';
      email: string;
      userId: number;
      /** The current claim is stale (its holder does not hold the address: a crash half-way): take it over. */
      takeOver?: JudgedClaim;
      now: string;
    }
  | { type: 'ReleaseEmail'; email: string; userId: number; judged?: JudgedClaim; now: string };

export const CLAIM_TAKEN = 'A user with this email already exists';

export const initialState = (): EmailClaimState => ({ claimedBy: null, version: 0 });

export function evolve(state: EmailClaimState, event: UserEvent): EmailClaimState {
  const version = state.version + 1;
  if (event.type === 'UserEmailClaimed') return { claimedBy: event.data.userId, version };
  if (event.type === 'UserEmailReleased' && state.claimedBy === event.data.userId)
    return { claimedBy: null, version };
  return { ...state, version };
}

const stillAsJudged = (state: EmailClaimState, judged: JudgedClaim) =>
  state.claimedBy === judged.holder && state.version === judged.version;

export function decide(command: EmailClaimCommand, state: EmailClaimState): UserEvent[] {
  if (command.type === 'ClaimEmail') {
    if (state.claimedBy === command.userId) return [];
    if (state.claimedBy !== null && !(command.takeOver && stillAsJudged(state, command.takeOver))) {
      throw new DomainError('CONFLICT', CLAIM_TAKEN);
    }
    return [
      { type: 'UserEmailClaimed', data: { email: command.email, userId: command.userId, at: command.now } },
    ];
  }
  if (state.claimedBy !== command.userId) return [];
  // Judged abandoned at one version: anything since (a take-over, a new claim) is not ours to free.
  if (command.judged && !stillAsJudged(state, command.judged)) return [];
  return [
    { type: 'UserEmailReleased', data: { email: command.email, userId: command.userId, at: command.now } },
  ];
}

export const emailClaimDecider = {
  initialState,
  evolve,
  decide,
  /** The address's blind index (services/users/auth.ts `claimStreamOf`). */
  streamId: (emailIndex: string) => `useremail-${emailIndex}`,
} satisfies Decider<EmailClaimState, EmailClaimCommand, UserEvent>;

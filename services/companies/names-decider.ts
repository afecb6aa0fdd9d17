// Company names are unique among active companies: one stream holds every claimed name,
// so two companies cannot take one name at once. A company holds its name while it is active and
// not deleted; deactivating or deleting releases it, reactivating claims it again.
import type { CompanyEvent } from '../../schema/companies/events.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';

/**
 * The key a name is compared by: format characters (zero-width space, soft hyphen, …) removed, since
 * "Acme\u200B" reads as "Acme"; trimmed, case and inner spacing folded. Idempotent: keys claimed
 * before a rule here was added are folded again when read (evolve), so their release still matches.
 */
export const nameKey = (name: string) =>
  name
    .replace(/\p{Cf}/gu, '')
    .trim()
    .replace(/\s+/g, ' ')
    .toLowerCase();

export interface NamesState {
  /** name key → company id */
  holders: ReadonlyMap<string, number>;
}

export const initialState = (): NamesState => ({ holders: new Map() });

export type NamesCommand =
  | { type: 'ClaimName'; companyId: number; name: string; now: string }
  | { type: 'ReleaseName'; companyId: number; name: string; now: string }
  /** The company's current name moves to a new one: released and claimed in one append. */
  | { type: 'RenameClaim'; companyId: number; from: string; to: string; now: string };

export const NAME_TAKEN = 'A company with this name already exists';

export function evolve(state: NamesState, event: CompanyEvent): NamesState {
  if (event.type !== 'CompanyNameClaimed' && event.type !== 'CompanyNameReleased') return state;
  const holders = new Map(state.holders);
  const key = nameKey(event.data.key);
  if (event.type === 'CompanyNameClaimed') holders.set(key, event.data.companyId);
  else if (holders.get(key) === event.data.companyId) holders.delete(key);
  return { holders };
}

function claim(state: NamesState, companyId: number, key: string, at: string): CompanyEvent[] {
  const holder = state.holders.get(key);
  if (holder === companyId) return [];
  if (holder !== undefined) throw new DomainError('CONFLICT', NAME_TAKEN);
  return [{ type: 'CompanyNameClaimed', data: { companyId, key, at } }];
}

function release(state: NamesState, companyId: number, key: string, at: string): CompanyEvent[] {
  if (state.holders.get(key) !== companyId) return [];
  return [{ type: 'CompanyNameReleased', data: { companyId, key, at } }];
}

export function decide(command: NamesCommand, state: NamesState): CompanyEvent[] {
  const at = command.now;
  switch (command.type) {
    case 'ClaimName':
      return claim(state, command.companyId, nameKey(command.name), at);
    case 'ReleaseName':
      return release(state, command.companyId, nameKey(command.name), at);
    case 'RenameClaim': {
      const from = nameKey(command.from);
      const to = nameKey(command.to);
      if (from === to) return claim(state, command.companyId, to, at);
      const claimed = claim(state, command.companyId, to, at);
      return [...release(state, command.companyId, from, at), ...claimed];
    }
  }
}

export const COMPANY_NAMES_STREAM = 'companynames';

export const namesDecider = {
  initialState,
  evolve,
  decide,
  streamId: () => COMPANY_NAMES_STREAM,
} satisfies Decider<NamesState, NamesCommand, CompanyEvent>;

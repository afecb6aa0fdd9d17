// One QuickBooks realm belongs to one Billflow company at a time: two companies on
// one realm would each open approvals for the same QuickBooks bill, and the payment slice would pay
// it twice. Like the company names (names-decider.ts), one stream holds every claimed realm, so two callbacks
// racing for one realm cannot both win (the second append conflicts and decides again). A company
// holds its realm from a successful callback until its credentials are removed, the company is
// deleted, or it connects to another realm.
import type { CompanyEvent } from '../../schema/companies/events.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';

export interface RealmsState {
  /** realm id → the holding company and its name when it claimed the realm */
  holders: ReadonlyMap<string, { companyId: number; companyName: string }>;
}

export const initialState = (): RealmsState => ({ holders: new Map() });

export type RealmsCommand =
  | { type: 'ClaimRealm'; companyId: number; companyName: string; realmId: string; now: string }
  | { type: 'ReleaseRealm'; companyId: number; realmId: string; now: string }
  /** Everything the company holds (its credentials removed, or the company deleted). */
  | { type: 'ReleaseCompanyRealms'; companyId: number; now: string };

export const realmTaken = (companyName: string) =>
  `This QuickBooks company is already connected to ${companyName} in Billflow. Disconnect it there first.`;

export function evolve(state: RealmsState, event: CompanyEvent): RealmsState {
  if (event.type !== 'CompanyQbRealmClaimed' && event.type !== 'CompanyQbRealmReleased') return state;
  const holders = new Map(state.holders);
  const { realmId, companyId } = event.data;
  if (event.type === 'CompanyQbRealmClaimed')
    holders.set(realmId, { companyId, companyName: event.data.companyName });
  else if (holders.get(realmId)?.companyId === companyId) holders.delete(realmId);
  return { holders };
}

export function decide(command: RealmsCommand, state: RealmsState): CompanyEvent[] {
  const at = command.now;
  const { companyId } = command;
  switch (command.type) {
    case 'ClaimRealm': {
      const holder = state.holders.get(command.realmId);
      if (holder?.companyId === companyId) return [];
      if (holder) throw new DomainError('CONFLICT', realmTaken(holder.companyName));
      // A company holds one realm: connecting to another lets the old one go in the same append.
      const released: CompanyEvent[] = [...state.holders]
        .filter(([, h]) => h.companyId === companyId)
        .map(([realmId]) => ({ type: 'CompanyQbRealmReleased', data: { companyId, realmId, at } }));
      return [
        ...released,
        {
          type: 'CompanyQbRealmClaimed',
          data: { companyId, realmId: command.realmId, companyName: command.companyName, at },
        },
      ];
    }
    case 'ReleaseRealm':
      if (state.holders.get(command.realmId)?.companyId !== companyId) return [];
      return [{ type: 'CompanyQbRealmReleased', data: { companyId, realmId: command.realmId, at } }];
    case 'ReleaseCompanyRealms':
      return [...state.holders]
        .filter(([, h]) => h.companyId === companyId)
        .map(([realmId]) => ({ type: 'CompanyQbRealmReleased', data: { companyId, realmId, at } }));
  }
}

export const QB_REALMS_STREAM = 'qbrealms';

export const realmsDecider = {
  initialState,
  evolve,
  decide,
  streamId: () => QB_REALMS_STREAM,
} satisfies Decider<RealmsState, RealmsCommand, CompanyEvent>;

// The manager aggregate as a decider: a contact record with a status. Its link to a
// user account lives in the `managerlinks` stream (links-decider.ts). Pure: times come in on the command.
import type { ManagerEvent, ManagerStatus } from '../../schema/managers/events.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';

export interface ManagerDetails {
  firstName: string;
  lastName: string;
  email: string;
  phone: string | null;
  title: string | null;
}

export interface ManagerState extends Partial<ManagerDetails> {
  exists: boolean;
  deleted: boolean;
  managerId: number | null;
  status: ManagerStatus | null;
  createdAt: string | null;
}

export const initialState = (): ManagerState => ({
  exists: false,
  deleted: false,
  managerId: null,
  status: null,
  createdAt: null,
});

export type ManagerCommand =
  | ({ type: 'CreateManager'; managerId: number; now: string } & ManagerDetails)
  | ({ type: 'UpdateManager'; now: string } & ManagerDetails)
  | { type: 'DeleteManager'; now: string };

export function evolve(state: ManagerState, event: ManagerEvent): ManagerState {
  switch (event.type) {
    case 'ManagerCreated': {
      const { managerId, status, createdAt, firstName, lastName, email, phone, title } = event.data;
      return {
        ...state,
        exists: true,
        managerId,
        status,
        createdAt,
        firstName,
        lastName,
        email,
        phone,
        title,
      };
    }
    case 'ManagerUpdated': {
      const { managerId: _id, updatedAt: _at, ...changes } = event.data;
      return { ...state, ...changes };
    }
    case 'ManagerDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}

const FIELDS = ['firstName', 'lastName', 'email', 'phone', 'title'] as const;

export function decide(command: ManagerCommand, state: ManagerState): ManagerEvent[] {
  if (command.type === 'CreateManager') {
    if (state.exists) throw new DomainError('CONFLICT', 'Manager already exists');
    const { managerId, firstName, lastName, email, phone, title, now } = command;
    return [
      {
        type: 'ManagerCreated',
        data: { managerId, firstName, lastName, email, phone, title, status: 'ACTIVE', createdAt: now },
      },
    ];
  }
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND', 'Manager not found');
  const managerId = state.managerId!;
  switch (command.type) {
    case 'UpdateManager': {
      const changes: Partial<ManagerDetails> = {};
      for (const f of FIELDS) if (command[f] !== state[f]) Object.assign(changes, { [f]: command[f] });
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'ManagerUpdated', data: { managerId, ...changes, updatedAt: command.now } }];
    }
    case 'DeleteManager':
      return [{ type: 'ManagerDeleted', data: { managerId, at: command.now } }];
  }
}

export const managerDecider = {
  initialState,
  evolve,
  decide,
  streamId: (managerId: number) => `manager-${managerId}`,
} satisfies Decider<ManagerState, ManagerCommand, ManagerEvent>;

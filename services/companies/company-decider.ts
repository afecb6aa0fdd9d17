// The company aggregate as a decider: details, status, assignments, payment account, NACHA settings
// and the connection to its bank. Name uniqueness is decided on the `companynames` stream (names-decider.ts); whether an
// assignee may be assigned (a manager that exists, a user of the right role) is checked by the use
// case against the read models. Pure: times come in on the command.
import { DEFAULT_CUTOFF_WINDOWS } from '../../schema/companies/bank-connection-commands.js';
import type {
  AssignmentRole,
  BankConnectionSettings,
  CompanyEvent,
  CompanyStatus,
  NachaSettings,
} from '../../schema/companies/events.js';
import type { Decider } from '../shared/decider.js';
import { DomainError } from '../shared/domain-errors.js';

export interface CompanyDetails {
  name: string;
  email: string | null;
  phone: string | null;
  website: string | null;
  address: string | null;
  description: string | null;
  industry: string | null;
}

export type Assignments = Record<`${AssignmentRole}Id`, number | null>;

export interface QbConnectionState {
  clientId: string | null;
  isSandbox: boolean;
  realmId: string | null;
  status: 'connected' | 'disconnected' | 'error' | null;
  accessExpiresAt: string | null;
  /** The hard expiry a re-consent warning was recorded for; null: none yet. */
  reconsentDueFor?: string | null;
  /** Why the connection was lost or needs attention, as recorded; null once connected again. */
  problem?: string | null;
}

export interface CompanyState {
  exists: boolean;
  deleted: boolean;
  companyId: number | null;
  details: CompanyDetails | null;
  status: CompanyStatus | null;
  assignments: Assignments;
  paymentAccountReference: string | null;
  /** The full settings, bank account number included (opened from the sealed event). */
  nacha: NachaSettings | null;
  qb: QbConnectionState;
  /** How its files reach the bank, the secret opened from the sealed event. */
  bank: BankConnectionSettings;
  /** Files made before the same-day deadline are effective the same day (off by default). */
  sameDayAch: boolean;
  createdAt: string | null;
}

/** Until an ADMIN sets one: files by hand, with the default cut-offs. */
export const MANUAL_BANK_CONNECTION: BankConnectionSettings = {
  mode: 'manual',
  host: null,
  port: null,
  username: null,
  password: null,
  privateKey: null,
  inbox: null,
  outbox: null,
  hostKeyFingerprint: null,
  windows: [...DEFAULT_CUTOFF_WINDOWS],
};

const NO_QB: QbConnectionState = {
  clientId: null,
  isSandbox: true,
  realmId: null,
  status: null,
  accessExpiresAt: null,
};

const NO_ASSIGNMENTS: Assignments = {
  managerId: null,
  processorId: null,
  approverId: null,
  accountantId: null,
};

export const initialState = (): CompanyState => ({
  exists: false,
  deleted: false,
  companyId: null,
  details: null,
  status: null,
  assignments: NO_ASSIGNMENTS,
  paymentAccountReference: null,
  nacha: null,
  qb: NO_QB,
  bank: MANUAL_BANK_CONNECTION,
  sameDayAch: false,
  createdAt: null,
});

export type CompanyCommand =
  | ({
      type: 'CreateCompany';
      companyId: number;
      assignments: Assignments;
      paymentAccountReference: string | null;
      now: string;
    } & CompanyDetails)
  | ({ type: 'UpdateCompany'; now: string } & CompanyDetails)
  | { type: 'ChangeAssignments'; assignments: Partial<Assignments>; now: string }
  | { type: 'SetPaymentAccount'; reference: string | null; now: string }
  | { type: 'ConfigureNacha'; settings: NachaSettings; now: string }
  | { type: 'SetSameDayAch'; sameDayAch: boolean; now: string }
  | { type: 'SaveQbCredentials'; clientId: string; isSandbox: boolean; now: string }
  | { type: 'RemoveQbCredentials'; now: string }
  | {
      type: 'RecordQbTokens';
      /** 'connected': a new grant (OAuth); 'refreshed': the same grant's tokens rotated. */
      kind: 'connected' | 'refreshed';
      realmId: string;
      accessExpiresAt: string;
      refreshExpiresAt: string | null;
      /** The refresh token's hard cap (Intuit's 5-year limit), when Intuit gave one. */
      refreshHardExpiresAt?: string | null;
      now: string;
    }
  | { type: 'RecordQbConnectionLost'; status: 'disconnected' | 'error'; reason: string; now: string }
  /** The refresh token's hard expiry is near: warn once per grant (the refresh job). */
  | { type: 'WarnQbReconsent'; hardExpiresAt: string; now: string }
  | { type: 'SetBankConnection'; settings: BankConnectionSettings; now: string }
  /** A check's outcome, recorded only while the connection is still the one checked (`checked`). */
  | {
      type: 'RecordBankConnectionCheck';
      checked: BankConnectionSettings;
      ok: boolean;
      message: string;
      hostKeyFingerprint: string | null;
      inboxFiles: number | null;
      outboxFiles: number | null;
      now: string;
    }
  | { type: 'ActivateCompany'; now: string }
  | { type: 'DeactivateCompany'; now: string }
  | { type: 'DeleteCompany'; now: string };

const DETAIL_FIELDS = ['name', 'email', 'phone', 'website', 'address', 'description', 'industry'] as const;

export function evolve(state: CompanyState, event: CompanyEvent): CompanyState {
  switch (event.type) {
    case 'CompanyCreated': {
      const d = event.data;
      return {
        ...state,
        exists: true,
        companyId: d.companyId,
        details: {
          name: d.name,
          email: d.email,
          phone: d.phone,
          website: d.website,
          address: d.address,
          description: d.description,
          industry: d.industry,
        },
        status: d.status,
        assignments: {
          managerId: d.managerId,
          processorId: d.processorId,
          approverId: d.approverId,
          accountantId: d.accountantId,
        },
        paymentAccountReference: d.qbPaymentAccountReference,
        createdAt: d.createdAt,
      };
    }
    case 'CompanyUpdated': {
      const { companyId: _id, updatedAt: _at, ...changes } = event.data;
      return { ...state, details: { ...state.details!, ...changes } };
    }
    case 'CompanyAssignmentChanged':
      return { ...state, assignments: { ...state.assignments, [`${event.data.role}Id`]: event.data.to } };
    case 'CompanyPaymentAccountChanged':
      return { ...state, paymentAccountReference: event.data.accountReference };
    case 'CompanyNachaConfigured': {
      const { companyId: _id, at: _at, ...settings } = event.data;
      return { ...state, nacha: settings };
    }
    case 'CompanySameDayAchSet':
      return { ...state, sameDayAch: event.data.sameDayAch };
    case 'CompanyQbCredentialsSaved':
      return {
        ...state,
        qb: { ...state.qb, clientId: event.data.clientId, isSandbox: event.data.isSandbox },
      };
    case 'CompanyQbCredentialsRemoved':
      return { ...state, qb: NO_QB };
    case 'CompanyQbConnected':
    case 'CompanyQbTokensRefreshed':
      return {
        ...state,
        qb: {
          ...state.qb,
          // A new grant has a hard expiry of its own: any earlier warning was for the old one.
          ...(event.type === 'CompanyQbConnected' ? { reconsentDueFor: null } : {}),
          realmId: event.data.realmId,
          status: 'connected',
          accessExpiresAt: event.data.accessExpiresAt,
          problem: null,
        },
      };
    case 'CompanyQbConnectionLost':
      return { ...state, qb: { ...state.qb, status: event.data.status, problem: event.data.reason } };
    case 'CompanyQbReconsentDue':
      return { ...state, qb: { ...state.qb, reconsentDueFor: event.data.hardExpiresAt } };
    case 'CompanyBankConnectionSet': {
      const { companyId: _id, at: _at, ...bank } = event.data;
      return { ...state, bank };
    }
    case 'CompanyActivated':
      return { ...state, status: 'ACTIVE' };
    case 'CompanyDeactivated':
      return { ...state, status: 'INACTIVE' };
    case 'CompanyDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}

export const COMPANY_NOT_FOUND = 'Company not found';

const BANK_FIELDS = [
  'mode',
  'host',
  'port',
  'username',
  'password',
  'privateKey',
  'inbox',
  'outbox',
  'hostKeyFingerprint',
] as const;

export const sameBankConnection = (a: BankConnectionSettings, b: BankConnectionSettings) =>
  BANK_FIELDS.every((f) => a[f] === b[f]) && a.windows.join() === b.windows.join();

export function decide(command: CompanyCommand, state: CompanyState): CompanyEvent[] {
  if (command.type === 'CreateCompany') {
    if (state.exists) throw new DomainError('CONFLICT', 'Company already exists');
    const { companyId, assignments, paymentAccountReference, now, type: _t, ...details } = command;
    return [
      {
        type: 'CompanyCreated',
        data: {
          companyId,
          ...details,
          status: 'ACTIVE',
          ...assignments,
          qbPaymentAccountReference: paymentAccountReference,
          createdAt: now,
        },
      },
    ];
  }
  if (!state.exists || state.deleted) throw new DomainError('NOT_FOUND', COMPANY_NOT_FOUND);
  const companyId = state.companyId!;
  const at = command.now;
  switch (command.type) {
    case 'UpdateCompany': {
      const changes: Partial<CompanyDetails> = {};
      for (const f of DETAIL_FIELDS)
        if (command[f] !== state.details![f]) Object.assign(changes, { [f]: command[f] });
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'CompanyUpdated', data: { companyId, ...changes, updatedAt: at } }];
    }
    case 'ChangeAssignments': {
      const events: CompanyEvent[] = [];
      for (const role of ['manager', 'processor', 'approver', 'accountant'] as const) {
        const to = command.assignments[`${role}Id`];
        const from = state.assignments[`${role}Id`];
        if (to !== undefined && to !== from)
          events.push({ type: 'CompanyAssignmentChanged', data: { companyId, role, from, to, at } });
      }
      return events;
    }
    case 'SetPaymentAccount':
      if (command.reference === state.paymentAccountReference) return [];
      return [
        {
          type: 'CompanyPaymentAccountChanged',
          data: { companyId, accountReference: command.reference, at },
        },
      ];
    case 'SetSameDayAch':
      if (command.sameDayAch === state.sameDayAch) return [];
      return [{ type: 'CompanySameDayAchSet', data: { companyId, sameDayAch: command.sameDayAch, at } }];
    case 'ConfigureNacha': {
      const same = state.nacha && JSON.stringify(state.nacha) === JSON.stringify(command.settings);
      if (same) return [];
      return [{ type: 'CompanyNachaConfigured', data: { companyId, ...command.settings, at } }];
    }
    case 'SaveQbCredentials':
      if (state.qb.clientId === command.clientId && state.qb.isSandbox === command.isSandbox) return [];
      return [
        {
          type: 'CompanyQbCredentialsSaved',
          data: { companyId, clientId: command.clientId, isSandbox: command.isSandbox, at },
        },
      ];
    case 'RemoveQbCredentials':
      if (state.qb.clientId === null && state.qb.realmId === null) return [];
      return [{ type: 'CompanyQbCredentialsRemoved', data: { companyId, at } }];
    case 'RecordQbTokens': {
      const { realmId, accessExpiresAt, refreshExpiresAt } = command;
      const hard = command.refreshHardExpiresAt ? { refreshHardExpiresAt: command.refreshHardExpiresAt } : {};
      // A refresh of a grant since replaced or removed records nothing (its tokens are not kept).
      if (
        command.kind === 'refreshed' &&
        (state.qb.realmId !== realmId || state.qb.status === 'disconnected')
      )
        return [];
      return [
        {
          type: command.kind === 'connected' ? 'CompanyQbConnected' : 'CompanyQbTokensRefreshed',
          data: { companyId, realmId, accessExpiresAt, refreshExpiresAt, ...hard, at },
        },
      ];
    }
    case 'RecordQbConnectionLost':
      if (state.qb.realmId === null || state.qb.status === command.status) return [];
      return [
        {
          type: 'CompanyQbConnectionLost',
          data: { companyId, realmId: state.qb.realmId, status: command.status, reason: command.reason, at },
        },
      ];
    case 'WarnQbReconsent':
      if (
        state.qb.realmId === null ||
        state.qb.status !== 'connected' ||
        state.qb.reconsentDueFor === command.hardExpiresAt
      )
        return [];
      return [
        {
          type: 'CompanyQbReconsentDue',
          data: { companyId, realmId: state.qb.realmId, hardExpiresAt: command.hardExpiresAt, at },
        },
      ];
    case 'SetBankConnection': {
      const s = command.settings;
      if (s.mode === 'sftp' && !s.password && !s.privateKey)
        throw new DomainError(
          'VALIDATION',
          'An SFTP connection needs the password or the private key of its login',
        );
      if (sameBankConnection(state.bank, s)) return [];
      return [{ type: 'CompanyBankConnectionSet', data: { companyId, ...s, at } }];
    }
    case 'RecordBankConnectionCheck': {
      // A check of settings since changed says nothing about the ones in force.
      if (state.bank.mode !== 'sftp' || !sameBankConnection(state.bank, command.checked)) return [];
      const { ok, message, hostKeyFingerprint, inboxFiles, outboxFiles } = command;
      return [
        {
          type: 'CompanyBankConnectionChecked',
          data: {
            companyId,
            ok,
            message,
            host: state.bank.host!,
            hostKeyFingerprint,
            inboxFiles,
            outboxFiles,
            at,
          },
        },
      ];
    }
    case 'ActivateCompany':
      if (state.status === 'ACTIVE') return [];
      return [{ type: 'CompanyActivated', data: { companyId, at } }];
    case 'DeactivateCompany':
      if (state.status === 'INACTIVE') return [];
      return [{ type: 'CompanyDeactivated', data: { companyId, at } }];
    case 'DeleteCompany':
      return [{ type: 'CompanyDeleted', data: { companyId, at } }];
  }
}

export const companyDecider = {
  initialState,
  evolve,
  decide,
  streamId: (companyId: number) => `company-${companyId}`,
} satisfies Decider<CompanyState, CompanyCommand, CompanyEvent>;

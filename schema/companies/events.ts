// Company aggregate events: client companies, their assignments, their payment account, their NACHA
// settings and their bank connection. Names are unique among active companies: the one
// `companynames` stream decides that (CompanyNameClaimed/Released).
import { z } from 'zod';
import type { PersonalFields } from '../shared/personal.js';

export const CompanyStatus = z.enum(['ACTIVE', 'INACTIVE', 'SUSPENDED']);
export type CompanyStatus = z.infer<typeof CompanyStatus>;

export const ASSIGNMENT_ROLES = ['manager', 'processor', 'approver', 'accountant'] as const;
export const AssignmentRole = z.enum(ASSIGNMENT_ROLES);
export type AssignmentRole = z.infer<typeof AssignmentRole>;

/** A company's data key subject: its bank account number, contact data and, later, QuickBooks secrets. */
export const companySubject = (companyId: number) => `company-${companyId}`;

const companyPersonal = (fields: readonly string[]): PersonalFields => ({
  subject: (data) => companySubject(data.companyId as number),
  fields,
});

const companyId = z.number().int().positive();
const id = z.number().int().positive().nullable();

/** The company's own details (the form's Basic Information). */
export const companyDetails = {
  name: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  website: z.string().nullable(),
  address: z.string().nullable(),
  description: z.string().nullable(),
  industry: z.string().nullable(),
};

export const NachaSettings = z.object({
  bankRoutingNumber: z.string(),
  bankAccountNumber: z.string(),
  bankAccountType: z.enum(['checking', 'savings']),
  bankName: z.string(),
  originatorStatusCode: z.string(),
  companyTaxId: z.string(),
  achCompanyId: z.string().nullable(),
  immediateDestinationName: z.string(),
  immediateOriginName: z.string(),
  companyEntryDescription: z.string(),
  companyDiscretionaryData: z.string().nullable(),
  /** A balanced file draws the company's own account in an offsetting debit (reference/nacha.md). */
  balancedFile: z.boolean(),
});
export type NachaSettings = z.infer<typeof NachaSettings>;

/** How the company's NACHA files reach its bank: by hand (download, confirm by link) or over SFTP. */
export const BankConnectionMode = z.enum(['manual', 'sftp']);
export type BankConnectionMode = z.infer<typeof BankConnectionMode>;

/**
 * The company's connection to its bank (its ODFI). For `manual` every SFTP field is null. One of
 * `password` and `privateKey` is set for `sftp`; both are sealed with the company's key.
 */
export const BankConnectionSettings = z.object({
  mode: BankConnectionMode,
  host: z.string().nullable(),
  port: z.number().int().nullable(),
  username: z.string().nullable(),
  password: z.string().nullable(),
  privateKey: z.string().nullable(),
  /** Where uploads go. */
  inbox: z.string().nullable(),
  /** Where the bank's answers are. */
  outbox: z.string().nullable(),
  /** The bank's host key as OpenSSH prints it (SHA256:…); any other key is refused. */
  hostKeyFingerprint: z.string().nullable(),
  /** The company's cut-offs, times of day in New York (HH:MM), in order. */
  windows: z.array(z.string()),
});
export type BankConnectionSettings = z.infer<typeof BankConnectionSettings>;

export const companyEvents = {
  CompanyCreated: {
    version: 1,
    personal: companyPersonal(['email', 'phone']),
    schema: z.object({
      companyId,
      ...companyDetails,
      status: CompanyStatus,
      managerId: id,
      processorId: id,
      approverId: id,
      accountantId: id,
      qbPaymentAccountReference: z.string().nullable(),
      createdAt: z.string(),
    }),
  },
  /** Only the details that changed are present. */
  CompanyUpdated: {
    version: 1,
    personal: companyPersonal(['email', 'phone']),
    schema: z.object({
      companyId,
      name: z.string().optional(),
      email: z.string().nullable().optional(),
      phone: z.string().nullable().optional(),
      website: z.string().nullable().optional(),
      address: z.string().nullable().optional(),
      description: z.string().nullable().optional(),
      industry: z.string().nullable().optional(),
      updatedAt: z.string(),
    }),
  },
  CompanyAssignmentChanged: {
    version: 1,
    schema: z.object({ companyId, role: AssignmentRole, from: id, to: id, at: z.string() }),
  },
  CompanyPaymentAccountChanged: {
    version: 1,
    schema: z.object({ companyId, accountReference: z.string().nullable(), at: z.string() }),
  },
  /** The whole NACHA settings; the bank account number sealed with the company's key. */
  CompanyNachaConfigured: {
    version: 1,
    personal: companyPersonal(['bankAccountNumber']),
    schema: NachaSettings.extend({ companyId, at: z.string() }),
  },
  /**
   * Whether the company sends Same-Day ACH (its bank agreed to it): files made before the same-day
   * deadline are effective the same day. Off until an ADMIN turns it on.
   */
  CompanySameDayAchSet: {
    version: 1,
    schema: z.object({ companyId, sameDayAch: z.boolean(), at: z.string() }),
  },
  /** The QuickBooks app's client id (not secret); the secret is in `qb_connections`, sealed. */
  CompanyQbCredentialsSaved: {
    version: 1,
    schema: z.object({ companyId, clientId: z.string(), isSandbox: z.boolean(), at: z.string() }),
  },
  CompanyQbCredentialsRemoved: { version: 1, schema: z.object({ companyId, at: z.string() }) },
  /** The OAuth grant completed: tokens stored (sealed, in `qb_connections`), never in an event. */
  CompanyQbConnected: {
    version: 1,
    schema: z.object({
      companyId,
      realmId: z.string(),
      accessExpiresAt: z.string(),
      refreshExpiresAt: z.string().nullable(),
      /** The refresh token's hard cap (Intuit's 5-year limit): re-consent by then. Absent on old events. */
      refreshHardExpiresAt: z.string().nullable().optional(),
      at: z.string(),
    }),
  },
  CompanyQbTokensRefreshed: {
    version: 1,
    schema: z.object({
      companyId,
      realmId: z.string(),
      accessExpiresAt: z.string(),
      refreshExpiresAt: z.string().nullable(),
      /** The refresh token's hard cap (Intuit's 5-year limit): re-consent by then. Absent on old events. */
      refreshHardExpiresAt: z.string().nullable().optional(),
      at: z.string(),
    }),
  },
  /** The grant was revoked or expired (`disconnected`), or QuickBooks kept failing (`error`). */
  CompanyQbConnectionLost: {
    version: 1,
    schema: z.object({
      companyId,
      realmId: z.string().nullable(),
      status: z.enum(['disconnected', 'error']),
      reason: z.string(),
      at: z.string(),
    }),
  },
  /**
   * The refresh token's hard expiry (Intuit's 5-year cap) is less than a week away: the company must
   * consent again by `hardExpiresAt`. Recorded once per grant by the refresh job; shown on the
   * connection card (e-mail to the company's manager once the product sends e-mail).
   */
  CompanyQbReconsentDue: {
    version: 1,
    schema: z.object({ companyId, realmId: z.string(), hardExpiresAt: z.string(), at: z.string() }),
  },
  /** The whole bank connection; its password or private key sealed with the company's key. */
  CompanyBankConnectionSet: {
    version: 1,
    personal: companyPersonal(['password', 'privateKey']),
    schema: BankConnectionSettings.extend({ companyId, at: z.string() }),
  },
  /**
   * A check of the SFTP connection: logged in with the host key pinned and both folders listed
   * (`ok`), or why not, in the bank's own words. `hostKeyFingerprint`: the key the server showed.
   */
  CompanyBankConnectionChecked: {
    version: 1,
    schema: z.object({
      companyId,
      ok: z.boolean(),
      message: z.string(),
      host: z.string(),
      hostKeyFingerprint: z.string().nullable(),
      inboxFiles: z.number().int().nullable(),
      outboxFiles: z.number().int().nullable(),
      at: z.string(),
    }),
  },
  CompanyActivated: { version: 1, schema: z.object({ companyId, at: z.string() }) },
  CompanyDeactivated: { version: 1, schema: z.object({ companyId, at: z.string() }) },
  CompanyDeleted: { version: 1, schema: z.object({ companyId, at: z.string() }) },
  /** In the `companynames` stream: `key` is the normalised name (trimmed, lower case, spaces folded). */
  CompanyNameClaimed: {
    version: 1,
    schema: z.object({ companyId, key: z.string(), at: z.string() }),
  },
  CompanyNameReleased: {
    version: 1,
    schema: z.object({ companyId, key: z.string(), at: z.string() }),
  },
  /**
   * In the `qbrealms` stream: one QuickBooks realm belongs to one company at a time,
   * decided there so two racing callbacks cannot both connect it. `companyName` names the holder in
   * the refusal another company gets.
   */
  CompanyQbRealmClaimed: {
    version: 1,
    schema: z.object({ companyId, realmId: z.string(), companyName: z.string(), at: z.string() }),
  },
  CompanyQbRealmReleased: {
    version: 1,
    schema: z.object({ companyId, realmId: z.string(), at: z.string() }),
  },
} as const;

type Defs = typeof companyEvents;
export type CompanyEvent = {
  [K in keyof Defs]: { type: K; data: z.infer<Defs[K]['schema']> };
}[keyof Defs];
export type CompanyEventOf<K extends CompanyEvent['type']> = Extract<CompanyEvent, { type: K }>;

// What the companies module answers, QuickBooks connection included (REST, OpenAPI and GraphQL
// alike): the application's answer types are z.infer of these (services/app/companies.ts,
// quickbooks.ts).
import { z } from 'zod';
import { named, pageOf } from '../shared/answers.js';

export const CompanyStatus = z.enum(['ACTIVE', 'INACTIVE', 'SUSPENDED']);
export const QbConnectionStatus = z.enum(['connected', 'disconnected', 'error']);

/** A person assigned to a company: its manager, or a user as processor, approver or accountant. */
export const CompanyAssignee = z.object({
  id: z.number().int(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  email: z.string(),
});
export type CompanyAssignee = z.infer<typeof CompanyAssignee>;

/** The last check of the company's SFTP connection to its bank. */
export const BankConnectionLastCheck = named(
  'BankConnectionLastCheck',
  z.object({
    ok: z.boolean(),
    message: z.string().describe('What the check found: the folders listed, or why not in the bank’s words'),
    host: z.string(),
    hostKeyFingerprint: z.string().nullable().describe('The host key the server showed (SHA256:…)'),
    inboxFiles: z.number().int().nullable(),
    outboxFiles: z.number().int().nullable(),
    at: z.iso.datetime(),
  }),
);

/** How the company's NACHA files reach its bank. The password or private key is never shown. */
export const BankConnection = named(
  'BankConnection',
  z.object({
    mode: z.enum(['manual', 'sftp']).describe('manual: download the file, confirm by e-mail link'),
    host: z.string().nullable(),
    port: z.number().int().nullable(),
    username: z.string().nullable(),
    passwordSet: z.boolean().describe('A password is stored (sealed); it is never returned'),
    keySet: z.boolean().describe('A private key is stored (sealed); it is never returned'),
    inbox: z.string().nullable().describe('The folder uploads go to'),
    outbox: z.string().nullable().describe('The folder of the bank’s answers'),
    hostKeyFingerprint: z.string().nullable().describe('The pinned host key, SHA256:… as OpenSSH prints it'),
    windows: z.array(z.string()).describe('Cut-offs, times of day in New York (HH:MM), in order'),
    lastCheck: BankConnectionLastCheck.nullable(),
  }),
);
export type BankConnection = z.infer<typeof BankConnection>;

/** A check that passed: logged in with the host key pinned, both folders listed. */
export const BankConnectionTest = named(
  'BankConnectionTest',
  z.object({
    ok: z.boolean(),
    message: z.string(),
    hostKeyFingerprint: z.string(),
    inbox: z.array(z.string()).describe('The names in the inbox folder'),
    outbox: z.array(z.string()).describe('The names in the outbox folder'),
    checkedAt: z.iso.datetime(),
  }),
);
export type BankConnectionTest = z.infer<typeof BankConnectionTest>;

/** The whole company (ADMIN): details, assignees, QuickBooks link, NACHA settings (masked), bank connection. */
export const Company = named(
  'Company',
  z.object({
    id: z.number().int(),
    name: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    website: z.string().nullable(),
    address: z.string().nullable(),
    description: z.string().nullable(),
    industry: z.string().nullable(),
    status: CompanyStatus,
    isActive: z.boolean(),
    qbRealmId: z.string().nullable(),
    qbConnectionStatus: QbConnectionStatus.nullable(),
    qbLastRefresh: z.iso.datetime().nullable(),
    qbPaymentAccountReference: z.string().nullable(),
    managerId: z.number().int().nullable(),
    processorId: z.number().int().nullable(),
    approverId: z.number().int().nullable(),
    accountantId: z.number().int().nullable(),
    manager: CompanyAssignee.nullable(),
    processor: CompanyAssignee.nullable(),
    approver: CompanyAssignee.nullable(),
    accountant: CompanyAssignee.nullable(),
    /** The NACHA settings are complete (a file can be written for this company). */
    nachaConfigured: z.boolean(),
    // The NACHA settings, present once configured.
    bankRoutingNumber: z.string().optional(),
    bankAccountNumber: z.string().optional().describe('Masked: only the last four characters show'),
    bankAccountType: z.enum(['checking', 'savings']).optional(),
    bankName: z.string().optional(),
    originatorStatusCode: z.string().optional(),
    companyTaxId: z.string().optional(),
    achCompanyId: z.string().nullable().optional(),
    immediateDestinationName: z.string().optional(),
    immediateOriginName: z.string().optional(),
    companyEntryDescription: z.string().optional(),
    companyDiscretionaryData: z.string().nullable().optional(),
    balancedFile: z.boolean().optional(),
    sameDayAch: z
      .boolean()
      .describe('Sends Same-Day ACH: files made before 14:45 New York are effective the same day'),
    bankConnection: BankConnection,
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  }),
);
export type Company = z.infer<typeof Company>;

/** What MODERATOR and USER read of a company (companies are ADMIN's). */
export const CompanyReference = named(
  'CompanyReference',
  z.object({
    id: z.number().int(),
    name: z.string(),
    qbConnectionStatus: QbConnectionStatus.nullable()
      .optional()
      .describe('MODERATOR only: the vendors page syncs a connected company'),
  }),
);
export type CompanyReference = z.infer<typeof CompanyReference>;

/** A company read: the whole company for ADMIN, its reference for MODERATOR and USER. */
export const CompanyRead = z
  .union([Company, CompanyReference])
  .describe(
    'ADMIN: the whole company. MODERATOR and USER: id and name (a MODERATOR also qbConnectionStatus).',
  );
export type CompanyRead = z.infer<typeof CompanyRead>;

export const CompanyPage = pageOf(CompanyRead);

// --- QuickBooks connection ------------------------------------------------------------------------

/** Whether QuickBooks app credentials are saved. The secret is never returned. */
export const QbCredentials = z.object({
  hasCredentials: z.boolean(),
  qbClientId: z.string().nullable(),
  qbIsSandbox: z.boolean(),
});
export type QbCredentials = z.infer<typeof QbCredentials>;

export const QbTokenStatus = z.object({
  hasTokens: z.boolean(),
  isExpired: z.boolean(),
  /** Seconds until the access token expires (0 once expired). */
  expiresIn: z.number().int(),
  reconsentBy: z
    .string()
    .nullable()
    .describe('When the company must consent again (the refresh token’s hard expiry); null if unknown'),
  reconsentDue: z.boolean().describe('Less than a week before reconsentBy: the refresh job warned'),
  problem: z
    .string()
    .nullable()
    .describe('Why the connection needs attention (e.g. the app credentials were refused); null if none'),
});
export type QbTokenStatus = z.infer<typeof QbTokenStatus>;

/** One of the company's bank accounts in QuickBooks, in QuickBooks' own field names. */
export const QbBankAccount = z.object({
  Id: z.string(),
  Name: z.string(),
  AccountType: z.string(),
  AccountSubType: z.string().optional(),
  Active: z.boolean(),
  CurrentBalance: z.number(),
});
export type QbBankAccount = z.infer<typeof QbBankAccount>;

/** The company's QuickBooks CompanyInfo and its active bank accounts. */
export const QbCompanyInfo = z.object({
  CompanyInfo: z.record(z.string(), z.unknown()).nullable(),
  QueryResponse: z.object({ Account: z.array(QbBankAccount) }),
});
export type QbCompanyInfo = z.infer<typeof QbCompanyInfo>;

export const QbAuthUrl = z.object({ authUrl: z.string() });

// The Vendors reads and writes, as GraphQL documents; the answer types come from them.
// Numbers come masked unless showUnmasked is asked (and allowed). Writes re-read the lists and
// details through the cache (lib/cache-rules.ts). The CSV export and import stay plain HTTP on the
// REST paths (decision 0002).

import { graphql, type ResultOf, type VariablesOf } from '../../../lib/graphql';
import { downloadFile, uploadForm } from '../../../lib/transfer';
import { EXPORT_FILE_NAME, EXPORT_FULL_FILE_NAME } from '../utils/vendor-rules';

export const VendorFields = graphql(`
  fragment VendorFields on Vendor @_unmask {
    id
    name
    companyId
    companyName
    qbVendorId
    email
    phone
    active
    hasBankingInfo
    routingNumber
    accountNumber
    accountType
    bankName
    createdAt
    updatedAt
    qbSyncedAt
    isUnmasked
    bankingBlock {
      returnCode
      description
      traceNumber
      since
      message
    }
    remittanceAdvice
  }
`);

export type Vendor = ResultOf<typeof VendorFields>;

/** Vendors by name, 20 a page (VENDORS_PAGE_SIZE). */
export const VendorsQuery = graphql(
  `
    query Vendors(
      $search: String
      $companyId: Int
      $hasBanking: Boolean
      $active: Boolean
      $page: Int
      $limit: Int
    ) {
      vendors(
        search: $search
        companyId: $companyId
        hasBanking: $hasBanking
        active: $active
        page: $page
        limit: $limit
      ) {
        data {
          ...VendorFields
        }
        total
        page
        limit
        totalPages
      }
    }
  `,
  [VendorFields],
);

export type VendorsVariables = VariablesOf<typeof VendorsQuery>;

/** A change of a vendor's bank details, masked (the numbers' last four digits only). */
export const BankingChangeFields = graphql(`
  fragment BankingChangeFields on VendorBankingChange @_unmask {
    changeId
    vendorId
    status
    source
    routingNumber
    accountNumber
    accountType
    previousRoutingNumber
    previousAccountNumber
    requestedById
    requestedByName
    requestedAt
    decidedById
    decidedByName
    decidedAt
    verifiedBy
    reason
    awaiting
    contactNotice
    microDeposits {
      verificationId
      status
      triesLeft
      fileName
      effectiveDate
      sentAt
      expiresAt
      startedById
      startedByName
      fileUrl
      linkUndelivered
    }
  }
`);

export type BankingChange = ResultOf<typeof BankingChangeFields>;

/**
 * One vendor with its held bank detail change (the numbers above it stay the live ones);
 * showUnmasked records the unmask (who, when) on the vendor's history.
 */
export const VendorQuery = graphql(
  `
    query Vendor($id: Int!, $showUnmasked: Boolean) {
      vendor(id: $id, showUnmasked: $showUnmasked) {
        ...VendorFields
        pendingBankingChange {
          ...BankingChangeFields
        }
      }
    }
  `,
  [VendorFields, BankingChangeFields],
);

export type VendorDetail = ResultOf<typeof VendorQuery>['vendor'];

/** Every change of the vendor's bank details, newest first (up to 200). */
export const VendorBankingChangesQuery = graphql(
  `
    query VendorBankingChanges($id: Int!) {
      vendorBankingChanges(id: $id) {
        ...BankingChangeFields
      }
    }
  `,
  [BankingChangeFields],
);

/** ADMIN or MODERATOR other than its maker: the held change goes live. */
export const ApproveVendorBankingChange = graphql(
  `
    mutation ApproveVendorBankingChange($id: Int!, $changeId: String!, $reason: String!) {
      approveVendorBankingChange(id: $id, changeId: $changeId, reason: $reason) {
        id
        pendingBankingChange {
          ...BankingChangeFields
        }
      }
    }
  `,
  [BankingChangeFields],
);

/**
 * ADMIN or MODERATOR: two credits under $1.00 to the held change's new account, in a file staff send
 * to the bank, and a link to the vendor's contact on record to enter them; the right amounts make the
 * change live.
 */
export const StartVendorMicroDeposits = graphql(
  `
    mutation StartVendorMicroDeposits($id: Int!, $changeId: String!) {
      startVendorMicroDeposits(id: $id, changeId: $changeId) {
        id
        pendingBankingChange {
          ...BankingChangeFields
        }
      }
    }
  `,
  [BankingChangeFields],
);

/** The micro-deposit file to upload to the bank (a download, so plain HTTP; each one is recorded). */
export function downloadMicroDepositFile(url: string, fileName: string): Promise<string> {
  return downloadFile(url, fileName, 'Failed to download the micro-deposit file');
}

/** ADMIN or MODERATOR: the held change is refused; the live bank details stay. */
export const RejectVendorBankingChange = graphql(
  `
    mutation RejectVendorBankingChange($id: Int!, $changeId: String!, $reason: String!) {
      rejectVendorBankingChange(id: $id, changeId: $changeId, reason: $reason) {
        id
        pendingBankingChange {
          ...BankingChangeFields
        }
      }
    }
  `,
  [BankingChangeFields],
);

export const VendorHistoryQuery = graphql(`
  query VendorHistory($id: Int!) {
    vendorHistory(id: $id) {
      action
      at
      userId
      userName
      details
    }
  }
`);

/** The company filter's and the sync's choices (up to 1000; a MODERATOR reads id, name and status). */
export const CompanyChoicesQuery = graphql(`
  query VendorCompanyChoices($limit: Int) {
    companies(page: 1, limit: $limit) {
      data {
        id
        name
        qbConnectionStatus
      }
    }
  }
`);

export type CompanyChoice = ResultOf<typeof CompanyChoicesQuery>['companies']['data'][number];

/** Answers the vendor with its held change: a new account waits for a second look. */
export const UpdateVendorBanking = graphql(
  `
    mutation UpdateVendorBanking($id: Int!, $input: VendorBankingInput!) {
      updateVendorBanking(id: $id, input: $input) {
        id
        pendingBankingChange {
          ...BankingChangeFields
        }
      }
    }
  `,
  [BankingChangeFields],
);

export const ClearVendorBanking = graphql(`
  mutation ClearVendorBanking($id: Int!) {
    clearVendorBanking(id: $id) {
      id
    }
  }
`);

/** ADMIN or MODERATOR: whether the vendor is mailed what it was paid when a file paying it goes to the bank. */
export const SetVendorRemittanceAdvice = graphql(`
  mutation SetVendorRemittanceAdvice($id: Int!, $enabled: Boolean!) {
    setVendorRemittanceAdvice(id: $id, enabled: $enabled) {
      id
      remittanceAdvice
    }
  }
`);

/** ADMIN: the vendor's data key is deleted and it leaves every list. */
export const ForgetVendor = graphql(`
  mutation ForgetVendor($id: Int!) {
    forgetVendor(id: $id)
  }
`);

/** Queues a sync of the company's vendors; vendorSyncProgress follows it. */
export const SyncVendors = graphql(`
  mutation SyncVendors($companyId: Int!, $limit: Int, $offset: Int) {
    syncVendors(companyId: $companyId, limit: $limit, offset: $offset) {
      syncId
      companyId
      status
      synced
      failed
    }
  }
`);

/** One sync's state: the poll that covers a job finished before the subscription was up. */
export const VendorSyncQuery = graphql(`
  query VendorSync($syncId: String!) {
    vendorSync(syncId: $syncId) {
      syncId
      status
      synced
      failed
      error
    }
  }
`);

/** The texts the REST answers carried (services/vendors/endpoints.ts). */
export const VENDOR_MESSAGES = {
  bankingUpdated: 'Banking information updated successfully',
  bankingHeld:
    'Bank details change saved: it goes live once another ADMIN or MODERATOR approves it, or the vendor confirms the micro-deposits',
  changeApproved: 'Bank details change approved: it is live',
  changeRejected: 'Bank details change rejected',
  microDepositsStarted:
    'Micro-deposit check started: download its file for the bank; the vendor’s contact gets a link to enter the amounts',
  bankingCleared: 'Banking information cleared successfully',
  remittanceOn: 'Remittance advice turned on',
  remittanceOff: 'Remittance advice turned off',
  forgotten: 'Vendor forgotten',
} as const;

/**
 * GET /api/vendors/export-csv (a download, so plain HTTP): masked numbers, or with `full` (ADMIN
 * only) the full ones, which the server records in each vendor's history.
 */
export function exportVendors(companyId: string, includeInactive: boolean, full = false): Promise<string> {
  const q = new URLSearchParams();
  if (companyId) q.set('companyId', companyId);
  if (includeInactive) q.set('includeInactive', 'true');
  if (full) q.set('full', 'true');
  const qs = q.toString();
  return downloadFile(
    `/api/vendors/export-csv${qs ? `?${qs}` : ''}`,
    full ? EXPORT_FULL_FILE_NAME : EXPORT_FILE_NAME,
    'Failed to export vendor data',
  );
}

/**
 * POST /api/vendors/import-csv (a file upload, so plain HTTP): the answer as the REST contract gives
 * it (services/vendors/api/rest/vendor-routes.ts; GraphQL has no import).
 */
export interface VendorImportResult {
  processed: number;
  updated: number;
  failed: number;
  /** Rows without bank details, or the same as stored. */
  unchanged?: number;
  /** Of the updated, the changes of an account that wait for a second look (not live yet). */
  held?: number;
  errors: Array<{ row: number; error: string }>;
}

export async function importVendors(
  file: File,
  onProgress: (percent: number) => void,
): Promise<VendorImportResult> {
  const form = new FormData();
  form.append('file', file, file.name);
  const res = await uploadForm<VendorImportResult>(
    '/api/vendors/import-csv',
    form,
    onProgress,
    'Failed to import CSV file',
  );
  if (!res.data) throw new Error('Failed to import CSV file');
  return res.data;
}

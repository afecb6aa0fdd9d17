// The files the bank sent back (returns, notifications of change) and what of them waits on a person,
// as GraphQL documents; reading a new file stays plain HTTP (a multipart upload to
// POST /api/payments/inbound-files, services/payments/api/rest/inbound-routes.ts: a bank's file is far
// above a GraphQL body's limit). The types come from the documents and the REST contract.
import { authFetch } from '../../../lib/api-client';
import { ApiError, buildErrorMessage } from '../../../lib/errors';
import { graphql, type ResultOf } from '../../../lib/graphql';
import type { ApiEnvelope } from '../../../types/api';

export const AchInboundFilesQuery = graphql(`
  query AchInboundFiles {
    achInboundFiles {
      fileId
      fileName
      source
      status
      returns
      corrections
      applied
      alreadyApplied
      reasons
      receivedAt
      appliedAt
      parked {
        line
        kind
        originalTrace
        code
        amountCents
        reason
      }
    }
  }
`);

export const NeedingAttentionQuery = graphql(`
  query PaymentEntriesNeedingAttention {
    paymentEntriesNeedingAttention {
      today
      lookbackDays
      corrections {
        traceNumber
        companyId
        companyName
        approvalId
        vendorId
        vendorName
        amountCents
        accountLast4
        code
        description
        receivedAt
        correctedAccountLast4
        correctedRoutingLast4
        dueBy
        overdue
      }
      returns {
        traceNumber
        companyId
        companyName
        approvalId
        vendorId
        vendorName
        amountCents
        accountLast4
        code
        description
        receivedAt
      }
    }
  }
`);

export type InboundFile = ResultOf<typeof AchInboundFilesQuery>['achInboundFiles'][number];
export type ParkedEntry = InboundFile['parked'][number];
export type NeedingAttention = ResultOf<typeof NeedingAttentionQuery>['paymentEntriesNeedingAttention'];
export type OpenCorrection = NeedingAttention['corrections'][number];
export type RecentReturn = NeedingAttention['returns'][number];

/** What reading a file answers (schema/payments/answers.ts InboundFileOutcome). */
export interface InboundFileOutcome {
  fileId: string;
  fileName: string;
  /** False: this very file was read before, and nothing changed now. */
  appliedNow: boolean;
  returns: number;
  corrections: number;
  applied: number;
  alreadyApplied: number;
  parked: Array<{
    line: number;
    kind: 'return' | 'correction' | 'other';
    originalTrace: string;
    code: string | null;
    amountCents: number;
    reason: string;
  }>;
}

export const INBOUND_FILES_PATH = '/api/payments/inbound-files';
/** The server's limit; a larger file is refused before it is sent. */
export const MAX_BANK_FILE_BYTES = 16 * 1024 * 1024;
/** A 16 MB file on a slow line takes longer than a JSON call's 10 s. */
const UPLOAD_TIMEOUT_MS = 120_000;
const FALLBACK = 'Failed to read the bank file';

/**
 * Uploads a file the bank sent back (ADMIN). Resolves with what was applied; rejects with an
 * ApiError carrying the server's refusal (a file that is not a valid ACH file names line and field).
 */
export async function readBankFile(file: File): Promise<InboundFileOutcome> {
  const form = new FormData();
  form.append('file', file, file.name);
  let response: Response;
  try {
    response = await authFetch(INBOUND_FILES_PATH, {
      method: 'POST',
      headers: { Accept: 'application/json' },
      body: form,
      timeoutMs: UPLOAD_TIMEOUT_MS,
    });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(err instanceof Error ? err.message : 'Network error', { kind: 'network' });
  }
  const body = (await response.json().catch(() => null)) as ApiEnvelope<InboundFileOutcome> | null;
  if (!response.ok || !body || body.success === false || !body.data)
    throw new ApiError(buildErrorMessage(body, FALLBACK), { status: response.status, body });
  return body.data;
}

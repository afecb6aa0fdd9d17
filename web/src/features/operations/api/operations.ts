// The operations overview (ADMIN): queues, consumers of the log, what holds the log back and unusual
// bank detail changes, as GraphQL documents; the retries and the dismissal of a parked event. The
// types come from them.
import { useMemo } from 'react';
import { graphql, type ResultOf } from '../../../lib/graphql';
import { useGqlMutation } from '../../../lib/use-graphql';

export const OperationsFields = graphql(`
  fragment OperationsFields on OperationsOverview @_unmask {
    generatedAt
    redis
    queues {
      name
      available
      counts {
        waiting
        active
        delayed
        failed
        completed
        paused
      }
      failedJobs {
        id
        name
        failedReason
        attemptsMade
        failedAt
        approvalId
        companyId
        companyName
      }
    }
    consumers {
      name
      kind
      checkpoint
      lagSeconds
      updatedAt
      parked {
        eventId
        eventType
        position
        streamId
        error
        attempts
        parkedAt
        retryRequested
      }
      dismissed {
        eventId
        eventType
        position
        streamId
        error
        attempts
        parkedAt
        dismissedAt
        dismissedBy {
          id
          name
        }
        reason
      }
    }
    logHolder {
      pid
      ageSeconds
      query
      state
    }
    bankingPatterns {
      lookbackDays
      rapidChangeThreshold
      paymentWithinHours
      rapidChanges {
        userId
        userName
        from
        to
        vendorCount
        changeCount
        vendors
      }
      changedThenPaid {
        changeId
        vendorId
        vendorName
        companyName
        changedByName
        changedAt
        liveAt
        verifiedBy
        accountNumber
        approvalId
        fileVersion
        paidAt
        bankUploadedAt
        paidAccountNumber
        amount
      }
    }
  }
`);

export const OperationsQuery = graphql(
  `
    query Operations {
      operations {
        ...OperationsFields
      }
    }
  `,
  [OperationsFields],
);

/** The whole overview, pushed when it changes (the gateway checks every 2 s while someone watches). */
export const OperationsChanged = graphql(
  `
    subscription OperationsChanged {
      operationsChanged {
        ...OperationsFields
      }
    }
  `,
  [OperationsFields],
);

/** The bank's line: open and overdue notifications of change, parked entries, returns (last 30 days). */
export const BankAttentionQuery = graphql(`
  query BankAttention {
    bankAttention {
      lookbackDays
      openCorrections
      overdueCorrections
      parkedEntries
      failedDeliveries
      returns
    }
  }
`);

export type BankAttention = NonNullable<ResultOf<typeof BankAttentionQuery>['bankAttention']>;

export type OperationsOverview = ResultOf<typeof OperationsFields>;
export type QueueOverview = OperationsOverview['queues'][number];
export type LogConsumer = OperationsOverview['consumers'][number];
export type BankingPatterns = NonNullable<OperationsOverview['bankingPatterns']>;

export const OPERATIONS_FALLBACK_MESSAGE = 'Failed to load the operations overview';

const RetryFailedJob = graphql(`
  mutation RetryFailedJob($queue: String!, $jobId: String!) {
    retryFailedJob(queue: $queue, jobId: $jobId)
  }
`);

const RetryParkedEvent = graphql(`
  mutation RetryParkedEvent($consumer: String!, $eventId: String!) {
    retryParkedEvent(consumer: $consumer, eventId: $eventId)
  }
`);

const DismissParkedEvent = graphql(`
  mutation DismissParkedEvent($consumer: String!, $eventId: String!, $reason: String!) {
    dismissParkedEvent(consumer: $consumer, eventId: $eventId, reason: $reason)
  }
`);

export { DismissParkedEvent, RetryFailedJob, RetryParkedEvent };

/** The texts the REST answers carried (services/operations/endpoints.ts). */
export const OPERATIONS_MESSAGES = {
  jobRetried: 'Job queued for another run',
  eventRetried: 'Retry requested: the consumer applies the event again shortly',
  eventDismissed: 'Parked event dismissed: it is kept on record and no longer counted',
} as const;

/** The page's writes; each resolves with the text to show. */
export function useOperationsActions() {
  const retryJob = useGqlMutation(RetryFailedJob, 'Failed to retry the job');
  const retryEvent = useGqlMutation(RetryParkedEvent, 'Failed to retry the event');
  const dismissEvent = useGqlMutation(DismissParkedEvent, 'Failed to dismiss the event');
  return useMemo(
    () => ({
      retryFailedJob: async (queue: string, jobId: string) => {
        await retryJob({ queue, jobId });
        return OPERATIONS_MESSAGES.jobRetried;
      },
      retryParkedEvent: async (consumer: string, eventId: string) => {
        await retryEvent({ consumer, eventId });
        return OPERATIONS_MESSAGES.eventRetried;
      },
      dismissParkedEvent: async (consumer: string, eventId: string, reason: string) => {
        await dismissEvent({ consumer, eventId, reason });
        return OPERATIONS_MESSAGES.eventDismissed;
      },
    }),
    [retryJob, retryEvent, dismissEvent],
  );
}

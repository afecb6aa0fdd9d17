// An approval's file on its way to the bank, given/when/then: scheduled, replaced by a newer version
// while waiting, delivered once, answered once; never replaced once at the bank.
import { describe, it } from 'vitest';
import type { PaymentsEvent } from '../../schema/payments/events.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { deliveryDecider } from './delivery-decider.js';

type E<T extends PaymentsEvent['type']> = Extract<PaymentsEvent, { type: T }>;
const at = '2026-12-07T14:00:00.000Z';
const spec = deciderSpec(deliveryDecider);
const scheduled = (version: number): E<'AchDeliveryScheduled'> => ({
  type: 'AchDeliveryScheduled',
  data: {
    approvalId: 'ap-1',
    companyId: 4,
    fileId: `f${version}`,
    version,
    fileName: `ACH_20261207_${'AB'[version - 1]}_ACME.txt`,
    effectiveDate: '2026-12-08',
    windowAt: '2026-12-07T15:15:00.000Z',
    at,
  },
});
const delivered = (version: number): E<'AchFileDelivered'> => ({
  type: 'AchFileDelivered',
  data: {
    approvalId: 'ap-1',
    companyId: 4,
    fileId: `f${version}`,
    version,
    fileName: scheduled(version).data.fileName,
    size: 940,
    sha256: 'c'.repeat(64),
    foundThere: false,
    at,
  },
});
const answer = { approvalId: 'ap-1', companyId: 4, fileId: 'f1', bankText: 'accepted', at };

describe('a file on its way to the bank', () => {
  it('waits for its window; a newer version replaces it, an older or the same does not', () => {
    spec
      .given([])
      .when({ type: 'ScheduleDelivery', facts: scheduled(1).data })
      .then([scheduled(1)]);
    spec
      .given([scheduled(1)])
      .when({ type: 'ScheduleDelivery', facts: scheduled(2).data })
      .then([scheduled(2)]);
    spec
      .given([scheduled(2)])
      .when({ type: 'ScheduleDelivery', facts: scheduled(1).data })
      .then([]);
    spec
      .given([scheduled(1)])
      .when({ type: 'ScheduleDelivery', facts: scheduled(1).data })
      .then([]);
  });
  it('is delivered once, and only the version waiting', () => {
    spec
      .given([scheduled(1)])
      .when({ type: 'RecordDelivered', facts: delivered(1).data })
      .then([delivered(1)]);
    spec
      .given([scheduled(2)])
      .when({ type: 'RecordDelivered', facts: delivered(1).data })
      .then([]);
    spec
      .given([scheduled(1), delivered(1)])
      .when({ type: 'RecordDelivered', facts: delivered(1).data })
      .then([]);
  });
  it('is never replaced once at the bank: a second file would pay twice', () => {
    spec
      .given([scheduled(1), delivered(1)])
      .when({ type: 'ScheduleDelivery', facts: scheduled(2).data })
      .then([]);
  });
  it("records the bank's answer once, and none before delivery", () => {
    spec
      .given([scheduled(1), delivered(1)])
      .when({ type: 'RecordBankAnswer', accepted: true, facts: answer })
      .then([{ type: 'AchFileAcknowledged', data: answer }]);
    spec
      .given([scheduled(1), delivered(1)])
      .when({ type: 'RecordBankAnswer', accepted: false, facts: answer })
      .then([{ type: 'AchFileRejectedByBank', data: answer }]);
    spec
      .given([scheduled(1), delivered(1), { type: 'AchFileAcknowledged', data: answer }])
      .when({ type: 'RecordBankAnswer', accepted: false, facts: answer })
      .then([]);
    spec
      .given([scheduled(1)])
      .when({ type: 'RecordBankAnswer', accepted: true, facts: answer })
      .then([]);
  });
  it('fails the version waiting; a new schedule after a failure goes ahead', () => {
    const failed: E<'AchDeliveryFailed'> = {
      type: 'AchDeliveryFailed',
      data: { approvalId: 'ap-1', companyId: 4, fileId: 'f1', reason: "The bank's host key changed", at },
    };
    spec
      .given([scheduled(1)])
      .when({ type: 'RecordDeliveryFailed', facts: failed.data })
      .then([failed]);
    spec
      .given([scheduled(1), delivered(1)])
      .when({ type: 'RecordDeliveryFailed', facts: failed.data })
      .then([]);
    spec
      .given([scheduled(1), failed])
      .when({ type: 'ScheduleDelivery', facts: scheduled(2).data })
      .then([scheduled(2)]);
  });
});

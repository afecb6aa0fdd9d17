import { describe, it } from 'vitest';
import type { VendorSyncEvent } from '../../schema/vendors/events.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { vendorSyncDecider } from './vendor-sync-decider.js';

const now = '2026-01-02T03:04:05.000Z';

describe('vendor sync decider', () => {
  const spec = deciderSpec(vendorSyncDecider);
  const requested: VendorSyncEvent = {
    type: 'VendorSyncRequested',
    data: { syncId: 's1', companyId: 2, limit: 1000, offset: 0, at: now },
  };
  const complete = {
    type: 'CompleteVendorSync' as const,
    syncId: 's1',
    companyId: 2,
    synced: 3,
    failed: 1,
    error: null,
    now,
  };

  it('completes a requested sync once; a job that runs again records nothing', () => {
    spec
      .given([requested])
      .when(complete)
      .then([
        {
          type: 'VendorSyncCompleted',
          data: { syncId: 's1', companyId: 2, synced: 3, failed: 1, error: null, at: now },
        },
      ]);
    spec
      .given([
        requested,
        {
          type: 'VendorSyncCompleted',
          data: { syncId: 's1', companyId: 2, synced: 3, failed: 1, error: null, at: now },
        },
      ])
      .when(complete)
      .then([]);
  });

  it('refuses to complete a sync never requested', () => {
    spec.given([]).when(complete).thenRefuses('NOT_FOUND');
  });
});

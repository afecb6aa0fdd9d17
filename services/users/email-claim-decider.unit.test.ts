import { describe, it } from 'vitest';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { emailClaimDecider } from './email-claim-decider.js';

const spec = deciderSpec(emailClaimDecider);
const now = '2026-01-02T03:04:05.000Z';
const claimed = (userId: number) => ({
  type: 'UserEmailClaimed' as const,
  data: { email: 'a@b.c', userId, at: now },
});

describe('e-mail claim decider', () => {
  it('claims a free address', () => {
    spec
      .given([])
      .when({ type: 'ClaimEmail', email: 'a@b.c', userId: 1, now })
      .then([claimed(1)]);
  });
  it('refuses an address another user holds', () => {
    spec
      .given([claimed(1)])
      .when({ type: 'ClaimEmail', email: 'a@b.c', userId: 2, now })
      .thenRefuses('CONFLICT', 'already exists');
  });
  it('lets a stale claim be taken over only as it was judged (holder and version)', () => {
    spec
      .given([claimed(1)])
      .when({ type: 'ClaimEmail', email: 'a@b.c', userId: 2, takeOver: { holder: 1, version: 1 }, now })
      .then([claimed(2)]);
    // A second take-over that judged the same stale claim finds it taken over already.
    spec
      .given([claimed(1), claimed(2)])
      .when({ type: 'ClaimEmail', email: 'a@b.c', userId: 3, takeOver: { holder: 1, version: 1 }, now })
      .thenRefuses('CONFLICT', 'already exists');
  });
  it('releases an abandoned claim only as it was judged', () => {
    spec
      .given([claimed(1)])
      .when({ type: 'ReleaseEmail', email: 'a@b.c', userId: 1, judged: { holder: 1, version: 1 }, now })
      .then([{ type: 'UserEmailReleased', data: { email: 'a@b.c', userId: 1, at: now } }]);
    spec
      .given([
        claimed(1),
        { type: 'UserEmailReleased', data: { email: 'a@b.c', userId: 1, at: now } },
        claimed(1),
      ])
      .when({ type: 'ReleaseEmail', email: 'a@b.c', userId: 1, judged: { holder: 1, version: 1 }, now })
      .then([]);
  });
  it('frees an address on release by its holder only', () => {
    const released = { type: 'UserEmailReleased' as const, data: { email: 'a@b.c', userId: 1, at: now } };
    spec
      .given([claimed(1)])
      .when({ type: 'ReleaseEmail', email: 'a@b.c', userId: 1, now })
      .then([released]);
    spec
      .given([claimed(1)])
      .when({ type: 'ReleaseEmail', email: 'a@b.c', userId: 2, now })
      .then([]);
    spec
      .given([claimed(1), released])
      .when({ type: 'ClaimEmail', email: 'a@b.c', userId: 2, now })
      .then([claimed(2)]);
  });
  it('is idempotent for the same holder', () => {
    spec
      .given([claimed(1)])
      .when({ type: 'ClaimEmail', email: 'a@b.c', userId: 1, now })
      .then([]);
  });
});

import { describe, it } from 'vitest';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { userSessionDecider } from './session-decider.js';

const spec = deciderSpec(userSessionDecider);
const now = '2026-01-02T03:04:05.000Z';

describe('user session decider', () => {
  it('records sign-ins and sign-outs on the user’s own session stream', () => {
    spec
      .given([])
      .when({ type: 'RecordSignIn', userId: 7, ip: '127.0.0.1', now })
      .then([{ type: 'UserSignedIn', data: { userId: 7, at: now, ip: '127.0.0.1' } }]);
    spec
      .given([])
      .when({ type: 'RecordSignOut', userId: 7, now })
      .then([{ type: 'UserSignedOut', data: { userId: 7, at: now } }]);
  });
});

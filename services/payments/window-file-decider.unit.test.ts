// A window's shared files, given/when/then: the first approval opens the file, the next join it as
// the next batches, a newer version takes its old batch's place, a file placed twice is placed once,
// and once sealed (downloaded or uploading) the window's next approval opens its next file.
import { describe, expect, it } from 'vitest';
import type { PaymentsEvent } from '../../schema/payments/events.js';
import { deciderSpec } from '../../test/support/decider-spec.js';
import { windowFileDecider, windowKey, windowStreamId } from './window-file-decider.js';

const windowAt = '2026-12-07T15:15:00.000Z';
const at = '2026-12-07T14:00:00.000Z';
const companyId = 7;
type E<T extends PaymentsEvent['type']> = Extract<PaymentsEvent, { type: T }>;
const opened = (file: number): E<'AchWindowFileOpened'> => ({
  type: 'AchWindowFileOpened',
  data: { companyId, via: 'manual', windowAt, file, createdAt: at },
});
const joined = (
  file: number,
  batch: number,
  approvalId: string,
  version = 1,
): E<'AchWindowFileBatchJoined'> => ({
  type: 'AchWindowFileBatchJoined',
  data: {
    companyId,
    via: 'manual',
    windowAt,
    file,
    batch,
    approvalId,
    fileId: `${approvalId}-v${version}`,
    version,
    at,
  },
});
const join = (approvalId: string, version = 1) =>
  ({
    type: 'JoinWindowFile',
    companyId,
    via: 'manual',
    windowAt,
    approvalId,
    fileId: `${approvalId}-v${version}`,
    version,
    now: at,
  }) as const;
const b = (batch: number, approvalId: string, version = 1) => ({
  batch,
  approvalId,
  fileId: `${approvalId}-v${version}`,
  version,
});

describe('a cut-off window’s shared files', () => {
  const spec = deciderSpec(windowFileDecider);

  it('names its stream by company and window, to the minute', () => {
    expect(windowKey(windowAt)).toBe('20261207T1515');
    expect(windowStreamId(companyId, 'sftp', windowAt)).toBe('achwindow-7-sftp-20261207T1515');
  });

  it('opens the window’s file for its first approval; the next ones are its next batches', () => {
    spec
      .given([])
      .when(join('a1'))
      .then([opened(1), joined(1, 1, 'a1')]);
    spec
      .given([opened(1), joined(1, 1, 'a1')])
      .when(join('a2'))
      .then([joined(1, 2, 'a2')]);
  });

  it('places a file asked again (a job run again) once', () => {
    spec
      .given([opened(1), joined(1, 1, 'a1'), joined(1, 2, 'a2')])
      .when(join('a1'))
      .then([]);
  });

  it('gives a newer version of an approval’s file its old batch while the file is open', () => {
    spec
      .given([opened(1), joined(1, 1, 'a1'), joined(1, 2, 'a2')])
      .when(join('a1', 2))
      .then([joined(1, 1, 'a1', 2)]);
  });

  it('seals with the batches named; a later approval, or a newer version, opens the next file', () => {
    const sealed: E<'AchWindowFileSealed'> = {
      type: 'AchWindowFileSealed',
      data: {
        companyId,
        via: 'manual',
        windowAt,
        file: 1,
        batches: [b(1, 'a1'), b(2, 'a2')],
        reason: 'download',
        at,
      },
    };
    spec
      .given([opened(1), joined(1, 1, 'a1'), joined(1, 2, 'a2')])
      .when({
        type: 'SealWindowFile',
        companyId,
        via: 'manual',
        windowAt,
        file: 1,
        batches: [b(2, 'a2'), b(1, 'a1')],
        reason: 'download',
        now: at,
      })
      .then([sealed]);
    spec
      .given([opened(1), joined(1, 1, 'a1'), joined(1, 2, 'a2'), sealed])
      .when({
        type: 'SealWindowFile',
        companyId,
        via: 'manual',
        windowAt,
        file: 1,
        batches: [],
        reason: 'upload',
        now: at,
      })
      .then([]);
    spec
      .given([opened(1), joined(1, 1, 'a1'), joined(1, 2, 'a2'), sealed])
      .when(join('a3'))
      .then([opened(2), joined(2, 1, 'a3')]);
    spec
      .given([opened(1), joined(1, 1, 'a1'), joined(1, 2, 'a2'), sealed])
      .when(join('a1', 2))
      .then([opened(2), joined(2, 1, 'a1', 2)]);
  });
});

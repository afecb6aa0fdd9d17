// The Activity History's steps in jsdom: who (a badge for an e-mail link's recipient and for a system
// job), when ('MMM d, HH:mm'), what changed (old → new in words, an erased value said so), the
// reason, the file, and where a step from another stream comes from; the log position only as data
// and a tooltip; lines wrap on a phone.
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { historyTime } from '../utils/approval-rules';
import { ApprovalHistoryList, type HistoryStep } from './approval-history';

const ID = 'cccccccc-1111-2222-3333-444444444444';
const at = '2026-11-20T10:05:00.000Z';
const step = (over: Partial<HistoryStep>): HistoryStep => ({
  id: over.id ?? 'e',
  position: '00000000000000000100:00000000000000000001',
  stream: `approval-${ID}`,
  action: 'Created',
  actorKind: 'USER',
  userName: 'Ada Lovelace',
  timestamp: at,
  details: null,
  amount: null,
  threshold: null,
  managerName: null,
  changes: [],
  reason: null,
  downloadUrl: null,
  ...over,
});

afterEach(cleanup);

const steps: HistoryStep[] = [
  step({
    id: 'p',
    position: '00000000000000000090:00000000000000000001',
    stream: 'approvalpolicy-4',
    action: 'Approval policy in force',
    details: 'Company policy: the creator may approve',
    changes: [{ field: 'secondApprovalThreshold', from: null, to: '$1,000.00' }],
  }),
  step({
    id: 'c',
    changes: [
      { field: 'status', from: null, to: 'Pending' },
      { field: 'recipients', from: null, to: '[erased]' },
    ],
  }),
  step({
    id: 'f',
    position: '00000000000000000120:00000000000000000003',
    action: 'NACHA generation failed',
    actorKind: 'SYSTEM',
    userName: 'System (payments job)',
    details: 'No NACHA settings',
    reason: 'No NACHA settings',
    changes: [{ field: 'nachaStatus', from: 'Generating', to: 'Needs attention' }],
  }),
  step({
    id: 'g',
    position: '00000000000000000130:00000000000000000004',
    action: 'NACHA file generated',
    downloadUrl: `/api/bill-approval/approvals/${ID}/nacha-files/f1`,
  }),
  step({
    id: 'l',
    position: '00000000000000000140:00000000000000000005',
    action: 'Bank upload confirmed',
    actorKind: 'LINK_RECIPIENT',
    userName: '[erased] (e-mail link)',
    changes: [
      { field: 'status', from: 'NACHA Generated', to: 'Bank Uploaded' },
      { field: 'recipients', from: null, to: '2 recipients' },
    ],
  }),
];

describe('Activity History', () => {
  it('shows who, when, what changed, the reason and the file of each step', () => {
    render(<ApprovalHistoryList steps={steps} />);
    const items = screen.getAllByTestId('history-step');
    // One item level: a step's parts are not list items of their own (the last item is the last step).
    expect(screen.getByTestId('history').querySelectorAll('li')).toHaveLength(items.length);
    expect(items.map((li) => within(li).getByTestId('history-action').textContent)).toEqual([
      'Approval policy in force',
      'Created',
      'NACHA generation failed',
      'NACHA file generated',
      'Bank upload confirmed',
    ]);
    const [policy, created, failed, generated, confirmed] = items;
    // Another stream's step says where it comes from; the approval's own do not.
    expect(within(policy).getByText('Company policy')).toBeTruthy();
    expect(within(created).queryByText('Company policy')).toBeNull();
    // Who and when; the log position is not in the text: an auditor finds it on the step and in
    // the time's tooltip.
    expect(within(created).getByTestId('history-actor').textContent).toBe('Ada Lovelace');
    expect(created.textContent).toContain(historyTime(at));
    for (const li of items) expect(li.textContent).not.toMatch(/#\d+:\d+|\d{8,}/);
    expect(created.dataset.position).toBe('00000000000000000100:00000000000000000001');
    expect(within(created).getByTitle(/00000000000000000100:00000000000000000001/).tagName).toBe('TIME');
    // Badges for who is not a signed-in user.
    expect(within(failed).getByText('System')).toBeTruthy();
    expect(within(failed).getByTestId('history-actor').textContent).toBe('System (payments job)');
    expect(within(confirmed).getByText('E-mail link')).toBeTruthy();
    expect(within(created).queryByText('System')).toBeNull();
    // What changed, old → new; nothing before reads "none", a forgotten value reads "erased".
    const changed = within(created).getByTestId('history-changes');
    expect(changed.title).toBe('What changed');
    expect(changed.textContent).toContain('Status:none→changed toPending');
    expect(within(changed).getByTitle('Its subject was forgotten').textContent).toBe('erased');
    expect(within(policy).getByTestId('history-changes').textContent).toContain(
      'Second approver above:none→changed to$1,000.00',
    );
    // Statuses and counts in words, as the server writes them.
    expect(within(confirmed).getByTestId('history-changes').textContent).toBe(
      'Status:NACHA Generated→changed toBank UploadedRecipients:none→changed to2 recipients',
    );
    expect(within(failed).getByTestId('history-changes').textContent).toContain(
      'NACHA file status:Generating→changed toNeeds attention',
    );
    // The reason once, labelled (a failure's text is its reason).
    expect(within(failed).getByTestId('history-reason').textContent).toBe('No NACHA settings');
    expect(failed.textContent?.match(/No NACHA settings/g)).toHaveLength(1);
    // The file belongs to its step only.
    expect(within(generated).getByRole('button', { name: 'Download file' })).toBeTruthy();
    expect(within(created).queryByRole('button', { name: 'Download file' })).toBeNull();
  });

  it('wraps its lines on a phone instead of scrolling sideways', () => {
    render(<ApprovalHistoryList steps={steps} />);
    for (const li of screen.getAllByTestId('history-step')) {
      expect(li.className).toContain('min-w-0');
      expect(li.className).toContain('[overflow-wrap:anywhere]');
      for (const line of li.querySelectorAll('p.flex')) expect(line.className).toContain('flex-wrap');
    }
  });
});

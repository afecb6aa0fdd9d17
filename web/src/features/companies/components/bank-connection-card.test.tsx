// The company's bank connection card: others see the mode only; an ADMIN switches to SFTP, its
// mistakes are shown at their fields before anything is sent, a stored secret is never shown and is
// kept when left empty, the server's field refusal lands at its field, and a check says what the bank
// said (or why not) while the last check recorded on the company is shown; with SFTP an ADMIN sends the
// files waiting for their cut-off window now, after a confirm, the toast saying the server's message.
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import {
  createGraphQLMock,
  type GraphQLMock,
  GraphQLTestProvider,
  gqlError,
} from '../../../testing/graphql-mock';
import {
  type BankConnection,
  CompanySendWaitingFilesNow,
  SetCompanyBankConnection,
  TestBankConnection,
} from '../api/bank-connection';
import { BankConnectionCard } from './bank-connection-card';

beforeEach(() => resetToasts());
afterEach(cleanup);

const FINGERPRINT = `SHA256:${'x'.repeat(43)}`;
const manual: BankConnection = {
  mode: 'manual',
  host: null,
  port: null,
  username: null,
  passwordSet: false,
  keySet: false,
  inbox: null,
  outbox: null,
  hostKeyFingerprint: null,
  windows: ['10:15', '14:30', '16:30'],
  lastCheck: null,
};
const sftp: BankConnection = {
  mode: 'sftp',
  host: 'sftp.bank.example',
  port: 22,
  username: 'acme',
  passwordSet: true,
  keySet: false,
  inbox: '/inbox',
  outbox: '/outbox',
  hostKeyFingerprint: FINGERPRINT,
  windows: ['10:00', '14:30'],
  lastCheck: {
    ok: false,
    message: 'The bank refused the login of acme: All configured authentication methods failed',
    host: 'sftp.bank.example',
    hostKeyFingerprint: FINGERPRINT,
    inboxFiles: null,
    outboxFiles: null,
    at: '2026-11-02T15:00:00.000Z',
  },
};

function open(gql: GraphQLMock, connection: BankConnection, canManage = true) {
  render(
    <GraphQLTestProvider mock={gql}>
      <BankConnectionCard companyId={7} connection={connection} canManage={canManage} />
      <Toaster />
    </GraphQLTestProvider>,
  );
}

const saved = { setCompanyBankConnection: { id: 7 } };
/** A field by its whole label (a required one ends " *"). */
const field = (label: string) =>
  screen.getByLabelText(new RegExp(`^${label.replace(/[()]/g, '\\$&')}( \\*)?$`)) as HTMLInputElement;

describe('BankConnectionCard', () => {
  it('shows others the mode only', () => {
    open(createGraphQLMock(), sftp, false);
    const card = screen.getByTestId('bank-connection-card');
    expect(within(card).getByText(/^Over SFTP: the product sends the file to the bank/)).toBeTruthy();
    expect(within(card).queryByRole('textbox')).toBeNull();
    expect(within(card).queryByRole('button')).toBeNull();
    expect(within(card).queryByText(/acme|sftp\.bank\.example|refused/)).toBeNull();
  });

  it('switches to SFTP, shows its mistakes before sending, then sends the login', async () => {
    const gql = createGraphQLMock().on(SetCompanyBankConnection, saved);
    open(gql, manual);
    const user = userEvent.setup();
    expect(screen.queryByLabelText(/^Host/)).toBeNull();
    expect(screen.queryByRole('button', { name: /Check connection/ })).toBeNull();
    await user.click(screen.getByRole('radio', { name: /^SFTP/ }));
    await user.clear(field('Port'));
    await user.type(field('Port'), '0');
    await user.clear(field('Cut-off windows (New York time)'));
    await user.type(field('Cut-off windows (New York time)'), '14:30, 10:00');
    await user.type(field('Host'), 'bank host');
    await user.click(screen.getByRole('button', { name: 'Save Connection' }));
    await screen.findByText('Host must be a host name or an IP address');
    expect(screen.getByText('Port must be a number from 1 to 65535')).toBeTruthy();
    expect(screen.getByText('Username is required')).toBeTruthy();
    expect(screen.getByText('The bank’s host key fingerprint is required (SHA256:…)')).toBeTruthy();
    expect(screen.getByText('Give the password or the private key of the bank login')).toBeTruthy();
    expect(screen.getByText('Cut-off windows must be in order of the day')).toBeTruthy();
    expect(gql.calls(SetCompanyBankConnection)).toEqual([]);

    await user.clear(field('Host'));
    await user.type(field('Host'), 'sftp.bank.example');
    await user.clear(field('Port'));
    await user.type(field('Port'), '2222');
    await user.type(field('Username'), 'acme');
    await user.type(field('Password'), 'correct horse');
    await user.type(field('Host key fingerprint'), FINGERPRINT);
    await user.clear(field('Cut-off windows (New York time)'));
    await user.type(field('Cut-off windows (New York time)'), '10:00, 14:30');
    await user.click(screen.getByRole('button', { name: 'Save Connection' }));
    await screen.findByText('Bank connection saved');
    expect(gql.calls(SetCompanyBankConnection)).toEqual([
      {
        id: 7,
        input: {
          mode: 'sftp',
          host: 'sftp.bank.example',
          port: 2222,
          username: 'acme',
          password: 'correct horse',
          inbox: '/inbox',
          outbox: '/outbox',
          hostKeyFingerprint: FINGERPRINT,
          windows: ['10:00', '14:30'],
        },
      },
    ]);
  });

  it('never shows the stored password, keeps it when left empty, and shows the server’s refusal at its field', async () => {
    const gql = createGraphQLMock().on(
      SetCompanyBankConnection,
      gqlError('Each cut-off must be a time of day HH:MM (00:00–23:59)', {
        fieldErrors: [
          { field: 'windows.0', message: 'Each cut-off must be a time of day HH:MM (00:00–23:59)' },
        ],
      }),
    );
    open(gql, sftp);
    const user = userEvent.setup();
    const password = field('Password');
    expect(password.value).toBe('');
    expect(password.type).toBe('password');
    expect(screen.getByText('Password set: leave empty to keep it.')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Save Connection' }));
    const windows = field('Cut-off windows (New York time)');
    await waitFor(() => expect(windows.getAttribute('aria-invalid')).toBe('true'));
    expect(screen.getByText('Each cut-off must be a time of day HH:MM (00:00–23:59)')).toBeTruthy();
    const [sent] = gql.calls(SetCompanyBankConnection) as Array<{ input: Record<string, unknown> }>;
    expect(sent.input).not.toHaveProperty('password');
    expect(sent.input).toMatchObject({ mode: 'sftp', username: 'acme', windows: ['10:00', '14:30'] });
  });

  it('asks for a private key when switching to one, and sends it without the password', async () => {
    const gql = createGraphQLMock().on(SetCompanyBankConnection, saved);
    open(gql, sftp);
    const user = userEvent.setup();
    await user.click(screen.getByRole('radio', { name: 'By private key' }));
    await user.click(screen.getByRole('button', { name: 'Save Connection' }));
    await screen.findByText('Give the password or the private key of the bank login');
    expect(gql.calls(SetCompanyBankConnection)).toEqual([]);
    await user.type(field('Private key'), 'KEY-TEXT');
    await user.click(screen.getByRole('button', { name: 'Save Connection' }));
    await screen.findByText('Bank connection saved');
    const [sent] = gql.calls(SetCompanyBankConnection) as Array<{ input: Record<string, unknown> }>;
    expect(sent.input).toMatchObject({ privateKey: 'KEY-TEXT' });
    expect(sent.input).not.toHaveProperty('password');
  });

  it('shows the last check, and a check’s outcome or the bank’s refusal in its words', async () => {
    let answer: unknown = {
      testBankConnection: {
        ok: true,
        message: 'Logged in as acme: /inbox holds 0 files, /outbox holds 2',
        inbox: [],
        outbox: ['A.ack', 'B.ack'],
        checkedAt: '2026-11-02T16:00:00.000Z',
      },
    };
    const gql = createGraphQLMock().on(TestBankConnection, () => answer as never);
    open(gql, sftp);
    const user = userEvent.setup();
    const last = screen.getByTestId('bank-connection-last-check');
    expect(last.textContent).toMatch(/^Connection failed \(.+\): The bank refused the login of acme/);
    await user.click(screen.getByRole('button', { name: /Check connection/ }));
    let toast = await screen.findByTestId('toast');
    expect(within(toast).getByText('Logged in as acme: /inbox holds 0 files, /outbox holds 2')).toBeTruthy();
    expect(gql.calls(TestBankConnection)).toEqual([{ companyId: 7 }]);

    const changed = `The bank's host key changed: expected ${FINGERPRINT}, got SHA256:${'y'.repeat(43)}; nothing was sent`;
    answer = gqlError(changed, { code: 'CONFLICT' });
    resetToasts();
    await user.click(screen.getByRole('button', { name: /Check connection/ }));
    toast = await screen.findByTestId('toast');
    expect(within(toast).getByText(changed)).toBeTruthy();
  });

  it('sends the waiting files now after a confirm, only over SFTP, with the server’s message or refusal', async () => {
    let answer: unknown = { sendWaitingFilesNow: '2 waiting files will be sent now' };
    const gql = createGraphQLMock().on(CompanySendWaitingFilesNow, () => answer as never);
    open(gql, sftp);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Send waiting files now' }));
    const dialog = await screen.findByRole('alertdialog');
    expect(within(dialog).getByText("Send the company's waiting files to the bank now?")).toBeTruthy();
    // Nothing is sent before the confirm.
    expect(gql.calls(CompanySendWaitingFilesNow)).toEqual([]);
    await user.click(within(dialog).getByRole('button', { name: 'Send now' }));
    let toast = await screen.findByTestId('toast');
    expect(within(toast).getByText('2 waiting files will be sent now')).toBeTruthy();
    expect(gql.calls(CompanySendWaitingFilesNow)).toEqual([{ companyId: 7 }]);
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());

    const refusal = 'This company sends its files by hand: there is nothing to send over SFTP';
    answer = gqlError(refusal, { code: 'CONFLICT' });
    resetToasts();
    await user.click(screen.getByRole('button', { name: 'Send waiting files now' }));
    await user.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Send now' }),
    );
    toast = await screen.findByTestId('toast');
    expect(within(toast).getByText('Not sent')).toBeTruthy();
    expect(within(toast).getByText(refusal)).toBeTruthy();
  });

  it('offers Send now to no one else, and not for a company that sends by hand', () => {
    open(createGraphQLMock(), manual);
    expect(screen.queryByRole('button', { name: 'Send waiting files now' })).toBeNull();
    cleanup();
    open(createGraphQLMock(), sftp, false);
    expect(screen.queryByRole('button', { name: 'Send waiting files now' })).toBeNull();
  });
});

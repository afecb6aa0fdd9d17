// The reason dialog of a payment step in jsdom, alone and on the NACHA card: submit waits for 3
// characters and sends the reason trimmed; "Send link again" toasts the server's own words ("Link
// sent again to 2 people") or its refusal and stays open; "Confirm in app" names the step the viewer
// saw; a USER is offered neither; the card says when the link was sent and when it expires or expired,
// and a step confirmed in the app shows its reason.
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import {
  createGraphQLMock,
  type GraphQLMock,
  GraphQLTestProvider,
  gqlError,
} from '../../../testing/graphql-mock';
import { ConfirmPaymentStep, type PaymentView, ResendPaymentLink } from '../api/payments';
import { ID, sampleApproval } from '../testing/sample-approval';
import { linkStanding, PaymentLinkActions } from './payment-link-actions';
import { PaymentStepDialog } from './payment-step-dialog';

const NOW = Date.parse('2026-12-08T12:00:00.000Z');
const generated = (over: Partial<PaymentView> = {}): PaymentView => ({
  ...sampleApproval(),
  status: 'NACHA_GENERATED',
  nachaFileGenerated: true,
  paymentLinkSentAt: '2026-12-06T15:00:00.000Z',
  paymentLinkExpiresAt: '2026-12-13T15:00:00.000Z',
  ...over,
});

let gql: GraphQLMock;
const show = (ui: React.ReactNode) =>
  render(
    <GraphQLTestProvider mock={gql}>
      <MemoryRouter>
        {ui}
        <Toaster />
      </MemoryRouter>
    </GraphQLTestProvider>,
  );

beforeEach(() => {
  gql = createGraphQLMock();
});
afterEach(() => {
  cleanup();
  resetToasts();
});

describe('PaymentStepDialog', () => {
  it('keeps submit disabled until the reason has 3 characters, then sends it trimmed and closes', async () => {
    const onSubmit = vi.fn(async () => {});
    const onOpenChange = vi.fn();
    show(
      <PaymentStepDialog
        open
        onOpenChange={onOpenChange}
        onSubmit={onSubmit}
        title="Send the bank upload link again"
        description="Fresh links go out."
        submitLabel="Send link again"
        busyLabel="Sending…"
      />,
    );
    const user = userEvent.setup();
    const submit = screen.getByRole('button', { name: 'Send link again' }) as HTMLButtonElement;
    expect(submit.disabled).toBe(true);
    await user.type(screen.getByLabelText('Reason *'), '  ab  ');
    expect(submit.disabled).toBe(true);
    await user.type(screen.getByLabelText('Reason *'), 'c');
    expect(submit.disabled).toBe(false);
    await user.click(submit);
    await waitFor(() => expect(onSubmit).toHaveBeenCalledWith('ab  c'));
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });
});

describe('the step’s link on the NACHA card', () => {
  it('says when the link was sent and when it expires, or that it expired', () => {
    expect(linkStanding(generated(), NOW).text).toBe('Link sent Dec 6, expires Dec 13');
    expect(linkStanding(generated(), Date.parse('2026-12-14T00:00:00.000Z'))).toEqual({
      text: 'Link expired Dec 13: send it again',
      lapsed: true,
    });
    expect(linkStanding(generated({ paymentLinkSentAt: null, paymentLinkExpiresAt: null }), NOW).text).toBe(
      'No link sent for this step',
    );
  });

  it('sends the link again with the reason, and toasts what the server did', async () => {
    gql.on(ResendPaymentLink, {
      resendPaymentLink: {
        message: 'Link sent again to 2 people',
        approval: { id: ID, status: 'NACHA_GENERATED' },
      },
    });
    show(<PaymentLinkActions payment={generated()} canManage now={NOW} />);
    expect(screen.getByTestId('payment-link-standing').textContent).toBe('Link sent Dec 6, expires Dec 13');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Send link again' }));
    await user.type(screen.getByLabelText('Reason *'), 'The manager lost the mail');
    await user.click(screen.getAllByRole('button', { name: 'Send link again' }).at(-1)!);
    await screen.findByText('Link sent again to 2 people');
    expect(gql.calls(ResendPaymentLink)).toEqual([{ id: ID, reason: 'The manager lost the mail' }]);
    await waitFor(() => expect(screen.queryByLabelText('Reason *')).toBeNull());
  });

  it('shows the server’s refusal and keeps the dialog open', async () => {
    const refusal =
      'Nobody to send the link to: this approval has neither a manager with an e-mail address nor recipients. Confirm the step in the app with a reason, or add a recipient and send the link again.';
    gql.on(ResendPaymentLink, gqlError(refusal, { code: 'CONFLICT' }));
    show(<PaymentLinkActions payment={generated()} canManage now={NOW} />);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Send link again' }));
    await user.type(screen.getByLabelText('Reason *'), 'Nobody got it');
    await user.click(screen.getAllByRole('button', { name: 'Send link again' }).at(-1)!);
    await screen.findByText(refusal);
    expect(screen.getByText('Link not sent')).toBeTruthy();
    expect(screen.getByLabelText('Reason *')).toBeTruthy();
  });

  it('confirms the step the viewer saw in the app', async () => {
    gql.on(ConfirmPaymentStep, {
      confirmPaymentStep: {
        message: 'Payment confirmed as completed in the app',
        approval: { id: ID, status: 'PAYMENT_COMPLETED' },
      },
    });
    show(<PaymentLinkActions payment={generated({ status: 'BANK_UPLOADED' })} canManage now={NOW} />);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Confirm in app' }));
    expect(screen.getByText('Confirm the payment in the app')).toBeTruthy();
    await user.type(screen.getByLabelText('Reason *'), 'Statement shows the credits');
    await user.click(screen.getAllByRole('button', { name: 'Confirm in app' }).at(-1)!);
    await screen.findByText('Payment confirmed as completed in the app');
    expect(gql.calls(ConfirmPaymentStep)).toEqual([
      { id: ID, reason: 'Statement shows the credits', action: 'payment-completed' },
    ]);
  });

  it('offers a USER neither button, and shows a reason given in the app to everyone', () => {
    const { unmount } = show(<PaymentLinkActions payment={generated()} canManage={false} now={NOW} />);
    expect(screen.queryByRole('button', { name: 'Send link again' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Confirm in app' })).toBeNull();
    unmount();
    show(
      <PaymentLinkActions
        payment={generated({
          status: 'PAYMENT_COMPLETED',
          bankUploadReason: 'Bank portal shows it accepted',
        })}
        canManage
        now={NOW}
      />,
    );
    expect(screen.getByTestId('payment-step-reason').textContent).toBe(
      'Bank upload confirmed in the app: Bank portal shows it accepted',
    );
    expect(screen.queryByRole('button', { name: 'Send link again' })).toBeNull();
  });
});

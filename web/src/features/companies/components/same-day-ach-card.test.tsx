import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import Toaster from '../../../components/ui/toaster';
import { resetToasts } from '../../../components/ui/use-toast';
import { createGraphQLMock, GraphQLTestProvider, gqlError } from '../../../testing/graphql-mock';
import { SetCompanySameDayAch } from '../api/companies';
import { SameDayAchCard } from './same-day-ach-card';

afterEach(() => {
  cleanup();
  resetToasts();
});

describe('SameDayAchCard', () => {
  it('turns Same-Day ACH on at once, saying what it does', async () => {
    const gql = createGraphQLMock();
    gql.on(SetCompanySameDayAch, { setCompanySameDayAch: { id: 4, sameDayAch: true } });
    render(
      <GraphQLTestProvider mock={gql}>
        <SameDayAchCard companyId={4} sameDayAch={false} />
        <Toaster />
      </GraphQLTestProvider>,
    );
    expect(screen.getByText(/effective the next banking day/)).toBeTruthy();
    await userEvent.click(screen.getByRole('switch', { name: 'Send payments same-day' }));
    await screen.findByText('Same-Day ACH turned on');
    expect(gql.calls(SetCompanySameDayAch)).toEqual([{ id: 4, sameDayAch: true }]);
    expect(screen.getByText(/before 2:45 PM New York/)).toBeTruthy();
  });

  it('a refusal leaves the switch as it was', async () => {
    const gql = createGraphQLMock();
    gql.on(SetCompanySameDayAch, gqlError('Forbidden', { code: 'FORBIDDEN' }));
    render(
      <GraphQLTestProvider mock={gql}>
        <SameDayAchCard companyId={4} sameDayAch={false} />
        <Toaster />
      </GraphQLTestProvider>,
    );
    const toggle = screen.getByRole('switch', { name: 'Send payments same-day' });
    await userEvent.click(toggle);
    await screen.findByText('Forbidden');
    await waitFor(() => expect(toggle.getAttribute('aria-checked')).toBe('false'));
  });
});

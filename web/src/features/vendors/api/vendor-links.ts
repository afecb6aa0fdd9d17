// The links a vendor's contact on record gets by e-mail about a change of its bank details (no
// sign-in: the token in the link is the credential). A read changes nothing; only a press acts.
import { api } from '../../../lib/api-client';

export interface VendorLinkChange {
  companyName: string;
  vendorName: string;
  accountType: 'checking' | 'savings';
  previousRoutingNumber: string | null;
  previousAccountNumber: string | null;
  routingNumber: string | null;
  accountNumber: string | null;
  madeBy: string;
  madeAt: string;
  status: 'pending' | 'frozen' | 'approved' | 'rejected' | 'live';
  canAct: boolean;
  note: string | null;
  expiresAt: string;
}

export interface MicroDepositLinkView extends VendorLinkChange {
  triesLeft: number;
  effectiveDate: string;
  verification: 'open' | 'confirmed' | 'locked' | 'replaced' | 'closed';
}

export interface NotMeResult {
  status: VendorLinkChange['status'];
  noAction: boolean;
  message: string;
}

export interface MicroDepositEntryResult {
  outcome: 'confirmed' | 'wrong' | 'locked';
  triesLeft: number;
  message: string;
}

const opts = (fallbackMessage: string, token: string) => ({
  query: { token },
  skipAuthRefresh: true,
  fallbackMessage,
});

async function data<T>(p: Promise<{ data?: T }>): Promise<T> {
  const r = await p;
  if (!r.data) throw new Error('The server sent no answer');
  return r.data;
}

export const readNotMeLink = (token: string) =>
  data(
    api.get<VendorLinkChange>(
      '/api/vendors/banking-links/not-me',
      opts('This link could not be read', token),
    ),
  );

export const pressNotMe = (token: string) =>
  data(
    api.post<NotMeResult>(
      '/api/vendors/banking-links/not-me',
      undefined,
      opts('The change could not be stopped', token),
    ),
  );

export const readMicroDepositLink = (token: string) =>
  data(
    api.get<MicroDepositLinkView>(
      '/api/vendors/banking-links/micro-deposits',
      opts('This link could not be read', token),
    ),
  );

export const enterMicroDeposits = (token: string, amounts: [string, string]) =>
  data(
    api.post<MicroDepositEntryResult>(
      '/api/vendors/banking-links/micro-deposits',
      { amounts },
      opts('The amounts could not be checked', token),
    ),
  );

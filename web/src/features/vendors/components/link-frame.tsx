// What both vendor link pages share: a card on its own (no sign-in, no shell), and the change it is
// about, tails only.
import type { ReactNode } from 'react';
import type { VendorLinkChange } from '../api/vendor-links';

export function LinkFrame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center bg-muted/50 px-4 py-12">
      <div
        className="w-full max-w-md rounded-xl border bg-card p-6 shadow-sm sm:p-8"
        data-testid="vendor-link"
      >
        <h1 className="text-2xl font-semibold tracking-tight [overflow-wrap:anywhere]">{title}</h1>
        <div className="mt-4 grid gap-3 text-sm [overflow-wrap:anywhere]">{children}</div>
        <p className="mt-6 border-t pt-3 text-xs text-muted-foreground">
          Billflow · a link from an e-mail; no sign-in needed. Nothing changes until you press a button.
        </p>
      </div>
    </main>
  );
}

const when = (iso: string) =>
  new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));

export function ChangeFacts({ change }: { change: VendorLinkChange }) {
  const rows: Array<[string, string]> = [
    ['Company', change.companyName],
    ['Vendor', change.vendorName],
    [
      'Before',
      change.previousAccountNumber
        ? `Account ${change.previousAccountNumber}, routing ${change.previousRoutingNumber ?? '—'}`
        : 'No bank details',
    ],
    [
      'After',
      `Account ${change.accountNumber ?? '—'}, routing ${change.routingNumber ?? '—'} (${change.accountType})`,
    ],
    ['Changed by', change.madeBy],
    ['When', when(change.madeAt)],
  ];
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5">
      {rows.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="text-muted-foreground">{k}</dt>
          <dd className="font-medium">{v}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Problem({ children }: { children: ReactNode }) {
  return (
    <p role="alert" className="rounded-md border border-destructive/50 bg-destructive/5 p-3 text-destructive">
      {children}
    </p>
  );
}

export function Done({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="rounded-md border border-green-700/40 bg-green-50 p-3 text-green-800">
      {children}
    </p>
  );
}

export const messageOf = (err: unknown) => (err instanceof Error ? err.message : 'Something went wrong');

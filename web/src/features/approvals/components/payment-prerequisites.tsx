// What the payment still needs, from the day the approval is made until the bank has the file: the
// company's NACHA settings and payment account (a file waits without them), each vendor's banking
// (its bills wait), and a payment account whose balance looks wrong. Said before money moves, not
// discovered after.
import { AlertTriangle, Info } from 'lucide-react';

export interface PaymentPrerequisiteItem {
  kind: string;
  blocking: boolean;
  vendorName: string | null;
  message: string;
}

export function PaymentPrerequisites({ items }: { items: readonly PaymentPrerequisiteItem[] }) {
  if (items.length === 0) return null;
  const blocking = items.some((i) => i.blocking);
  return (
    <section
      aria-labelledby="payment-prerequisites-title"
      data-testid="payment-prerequisites"
      className={
        blocking
          ? 'rounded-lg border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-950'
          : 'rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950'
      }
    >
      <h2 id="payment-prerequisites-title" className="flex items-center gap-2 font-medium">
        {blocking ? (
          <AlertTriangle className="size-4" aria-hidden />
        ) : (
          <Info className="size-4" aria-hidden />
        )}
        {blocking ? 'Before this can be paid' : 'Check before paying'}
      </h2>
      <ul className="mt-1 list-disc pl-6">
        {items.map((i) => (
          <li key={`${i.kind}:${i.vendorName ?? ''}:${i.message}`} className="[overflow-wrap:anywhere]">
            {i.message}
          </li>
        ))}
      </ul>
    </section>
  );
}

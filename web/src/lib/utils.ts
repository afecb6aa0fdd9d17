import { type ClassValue, clsx } from 'clsx';
import { twMerge } from 'tailwind-merge';

/** Joins class names and lets later Tailwind utilities win over earlier ones (shadcn's `cn`). */
export function cn(...inputs: ClassValue[]) {
  return twMerge(clsx(inputs));
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * An amount in the reader's locale and the given currency (USD unless said), always 2 decimals:
 * 4693.45 → '$4,693.45' in en-US, '4.693,45 $' in de-DE. The one money format of the screens.
 */
export function formatCurrency(
  amount: number | null | undefined,
  currency = 'USD',
  /** The reader's (the browser's) unless given. */
  locale?: string,
): string {
  const key = `${locale ?? ''}|${currency}`;
  let format = moneyFormats.get(key);
  if (!format) {
    try {
      format = new Intl.NumberFormat(locale, {
        style: 'currency',
        currency,
        minimumFractionDigits: 2,
        maximumFractionDigits: 2,
      });
    } catch {
      // An unknown currency code (a bad snapshot) still shows as dollars rather than breaking the page.
      return currency === 'USD' ? String(amount) : formatCurrency(amount, 'USD', locale);
    }
    moneyFormats.set(key, format);
  }
  return format.format(Number.isFinite(amount) ? (amount as number) : 0);
}

// The browser tab and history name the screen: "Approvals · Billflow", "Approval 1234abcd ·
// Billflow". Each route's page says its own name (from its data once loaded, such as a company's
// name); a page that goes away gives the product's bare name back, so no screen shows another's.
import { useEffect } from 'react';

export const APP_NAME = 'Billflow';

/** "Vendors" → "Vendors · Billflow"; nothing → "Billflow". */
export function documentTitle(screen: string | null | undefined): string {
  const name = screen?.trim();
  return name ? `${name} · ${APP_NAME}` : APP_NAME;
}

export function useDocumentTitle(screen: string | null | undefined): void {
  useEffect(() => {
    document.title = documentTitle(screen);
  }, [screen]);
  useEffect(
    () => () => {
      document.title = APP_NAME;
    },
    [],
  );
}

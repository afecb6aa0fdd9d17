// A file saved by the browser, as jsdom sees it: object URLs stubbed, and each link click that would
// save a file recorded by the file name it offers. vi.restoreAllMocks() puts the click back.
//
// Usage: const saved = captureDownloads(); … click Export … expect(saved).toEqual(['audit-1.json']);
import { vi } from 'vitest';

export function captureDownloads(): string[] {
  const saved: string[] = [];
  URL.createObjectURL = vi.fn(() => 'blob:download');
  URL.revokeObjectURL = vi.fn();
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push(this.download);
  });
  return saved;
}

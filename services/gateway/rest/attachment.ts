// Content-Disposition for the files the REST adapter sends (invoices, NACHA files, exports).

/**
 * Content-Disposition for a name QuickBooks gave: an ASCII fallback, and the exact name in RFC 5987
 * form (a header value beyond Latin-1 would make Node refuse the answer).
 */
export function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const exact = encodeURIComponent(fileName).replace(
    /['()*!]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

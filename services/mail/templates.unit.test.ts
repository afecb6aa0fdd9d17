import { describe, expect, it } from 'vitest';
import { escapeHtml, formatDay, formatUsd, oneLine } from './format.js';
import { type MailTemplateData, type MailTemplateName, mailTemplates, renderTemplate } from './templates.js';

const ctx = { appUrl: 'https://billflow.example.com' };
const EVIL = `Acme <script>alert("x")</script> & 'Sons' <img src=x onerror=alert(1)>`;
const ACTION = 'https://billflow.example.com/links/abc123?x=1&y=2';

const samples: { [T in MailTemplateName]: MailTemplateData<T> } = {
  'approval-assigned': {
    approvalId: 'ap-1',
    companyName: 'Acme Corp',
    managerName: 'Dana Reyes',
    billCount: 3,
    amountCents: 123_456,
  },
  'bank-upload-requested': {
    approvalId: 'ap-1',
    companyName: 'Acme Corp',
    fileName: 'ACH_20250602_A.txt',
    entryCount: 4,
    totalCents: 99_900_05,
    effectiveDate: '2025-06-02',
    actionUrl: ACTION,
    linkExpiresAt: '2025-06-09T14:00:00.000Z',
  },
  'payment-completion-requested': {
    approvalId: 'ap-1',
    companyName: 'Acme Corp',
    fileName: 'ACH_20250602_A.txt',
    totalCents: 5,
    effectiveDate: '2025-06-02',
    actionUrl: ACTION,
  },
  'payment-completed': {
    approvalId: 'ap-1',
    companyName: 'Acme Corp',
    billCount: 2,
    totalCents: 150_000,
    vendors: [
      { name: 'Paper Supply Co', amountCents: 100_000 },
      { name: 'Northwind', amountCents: 50_000 },
    ],
    completedAt: '2025-06-03T10:30:00.000Z',
  },
  'payment-problem': {
    approvalId: 'ap-1',
    companyName: 'Acme Corp',
    managerName: 'Dana',
    problem: 'Generating the NACHA file failed: the database could not be reached',
    at: '2025-06-03T10:30:00.000Z',
  },
  'payment-returned': {
    approvalId: 'ap-1',
    companyName: 'Acme Corp',
    personName: 'Dana',
    vendorName: 'Paper Supply Co',
    amountCents: 100_000,
    accountLast4: '0003',
    returnCode: 'R03',
    description: 'No Account/Unable to Locate Account',
    blocksBanking: true,
    bills: ['1001', '1002'],
    returnedAt: '2025-06-05T10:30:00.000Z',
  },
  'remittance-advice': {
    companyName: 'Acme Corp',
    vendorName: 'Paper Supply Co',
    amountCents: 150_025,
    effectiveDate: '2025-06-02',
    accountLast4: '0003',
    traceNumber: '091000010000042',
    bills: [
      { docNumber: 'INV-1001', amountCents: 100_000 },
      { docNumber: 'INV-1002', amountCents: 50_025 },
    ],
  },
  'vendor-banking-change-notice': {
    companyName: 'Acme Corp',
    vendorName: 'Paper Supply Co',
    previous: { routing: '0025', account: '1004' },
    next: { routing: '0021', account: '6666' },
    accountType: 'checking',
    madeBy: 'Morgan Moderator',
    madeAt: '2025-06-03T10:30:00.000Z',
    actionUrl: ACTION,
    linkExpiresAt: '2025-06-17T10:30:00.000Z',
  },
  'vendor-banking-change-frozen': {
    companyName: 'Acme Corp',
    vendorName: 'Paper Supply Co',
    vendorId: 42,
    previous: null,
    next: { routing: '0021', account: '6666' },
    madeBy: 'Morgan Moderator',
    madeAt: '2025-06-03T10:30:00.000Z',
    frozenAt: '2025-06-03T11:00:00.000Z',
  },
  'vendor-micro-deposits': {
    companyName: 'Acme Corp',
    vendorName: 'Paper Supply Co',
    next: { routing: '0021', account: '6666' },
    effectiveDate: '2025-06-04',
    tries: 3,
    actionUrl: ACTION,
    linkExpiresAt: '2025-06-17T10:30:00.000Z',
  },
};

/** Every text a person reads in both parts (HTML-escaped where it is HTML). */
const inBoth = (mail: { html: string; text: string }, ...texts: string[]) => {
  for (const t of texts) {
    expect(mail.text).toContain(t);
    expect(mail.html).toContain(escapeHtml(t));
  }
};

describe('mail formatting', () => {
  it('writes USD with two decimals and thousands separators', () => {
    expect(formatUsd(123_456)).toBe('$1,234.56');
    expect(formatUsd(5)).toBe('$0.05');
    expect(formatUsd(100)).toBe('$1.00');
  });

  it('spells out an effective date in UTC', () => {
    expect(formatDay('2025-06-02')).toBe('Mon, June 2, 2025');
  });

  it('keeps an injected value on one line', () => {
    expect(oneLine('Acme\r\n\r\nClick http://evil\tnow')).toBe('Acme Click http://evil now');
  });
});

describe('mail templates', () => {
  it('approval-assigned: the company, bill count, amount and a link to the approval', async () => {
    const m = await renderTemplate('approval-assigned', samples['approval-assigned'], ctx);
    expect(m.subject).toBe('New approval for Acme Corp: 3 bills, $1,234.56');
    inBoth(m, 'Hello Dana Reyes,', 'Acme Corp asks you to approve 3 bills totalling $1,234.56.');
    inBoth(m, 'Review the approval', 'https://billflow.example.com/approvals/ap-1');
  });

  it('bank-upload-requested: the button to the given URL, file, entries, total, effective date', async () => {
    const m = await renderTemplate('bank-upload-requested', samples['bank-upload-requested'], ctx);
    expect(m.subject).toBe('NACHA file ready for the bank: Acme Corp, $99,900.05');
    inBoth(m, 'Confirm bank upload', 'ACH_20250602_A.txt', '$99,900.05', 'Mon, June 2, 2025', 'Entries');
    expect(m.html).toContain(`href="${escapeHtml(ACTION)}"`);
    expect(m.text).toContain(`Confirm bank upload:\n${ACTION}`);
    inBoth(m, 'June 9, 2025 at 14:00 UTC', 'https://billflow.example.com/approvals/ap-1');
    expect(m.text).not.toContain('Held out');
  });

  it('bank-upload-requested: names the vendors the file holds out, and why', async () => {
    const heldOut = ['Acme Paper: bank details changed after approval: approve again'];
    const m = await renderTemplate(
      'bank-upload-requested',
      { ...samples['bank-upload-requested'], heldOut },
      ctx,
    );
    inBoth(
      m,
      'does not pay every vendor approved',
      'Held out: Acme Paper: bank details changed after approval',
    );
  });

  it('payment-completion-requested: the button "Confirm payment completed" to the given URL', async () => {
    const m = await renderTemplate(
      'payment-completion-requested',
      samples['payment-completion-requested'],
      ctx,
    );
    expect(m.subject).toBe('The bank took the file: confirm payment for Acme Corp');
    inBoth(m, 'The bank took the NACHA file', 'Confirm payment completed', '$0.05');
    expect(m.html).toContain(`href="${escapeHtml(ACTION)}"`);
    expect(m.text).toContain(`Confirm payment completed:\n${ACTION}`);
  });

  it('payment-completed: the total, each vendor with its amount, and the link to the approval', async () => {
    const m = await renderTemplate('payment-completed', samples['payment-completed'], ctx);
    expect(m.subject).toBe('Paid: Acme Corp, $1,500.00');
    inBoth(m, 'The approval for Acme Corp was paid: 2 bills, $1,500.00 in all.');
    inBoth(m, 'Paper Supply Co', '$1,000.00', 'Northwind', '$500.00', 'View the approval');
    expect(m.text).toContain('- Paper Supply Co: $1,000.00');
  });

  it('payment-completed says when the books do not match the bank: QuickBooks not or partly recorded', async () => {
    const failed = await renderTemplate(
      'payment-completed',
      { ...samples['payment-completed'], quickbooks: { status: 'FAILED', message: 'No bill could be paid' } },
      ctx,
    );
    inBoth(failed, 'Attention: the bill payments are not recorded in QuickBooks (No bill could be paid).');
    expect(failed.text).toContain('QuickBooks: Not recorded');
    const partly = await renderTemplate(
      'payment-completed',
      { ...samples['payment-completed'], quickbooks: { status: 'PARTIAL_SUCCESS', message: null } },
      ctx,
    );
    inBoth(partly, 'only partly recorded in QuickBooks');
    const ok = await renderTemplate(
      'payment-completed',
      { ...samples['payment-completed'], quickbooks: { status: 'SUCCESS', message: null } },
      ctx,
    );
    inBoth(ok, 'The bill payments are recorded in QuickBooks.');
    expect(ok.text).not.toContain('Attention');
  });

  it('payment-problem tells the manager which step failed, why, and where to retry', async () => {
    const m = await renderTemplate('payment-problem', samples['payment-problem'], ctx);
    expect(m.subject).toBe('Payment problem: Acme Corp');
    inBoth(m, 'Generating the NACHA file failed: the database could not be reached', 'View the approval');
  });

  it('payment-returned: the vendor, amount, code and its words, the bills open again, the account by its last four', async () => {
    const m = await renderTemplate('payment-returned', samples['payment-returned'], ctx);
    expect(m.subject).toBe('Payment returned for Acme Corp: Paper Supply Co, $1,000.00 (R03)');
    inBoth(
      m,
      'R03 No Account/Unable to Locate Account',
      '2 bills (1001, 1002) are open again',
      'ending 0003',
      'blocked for payments until someone changes them',
    );
    await expect(
      renderTemplate('payment-returned', { ...samples['payment-returned'], accountLast4: '7100000003' }, ctx),
    ).rejects.toThrow();
  });

  it('remittance-advice: the payer, amount, effective date, bills with their amounts, last four and trace', async () => {
    const m = await renderTemplate('remittance-advice', samples['remittance-advice'], ctx);
    expect(m.subject).toBe('Payment from Acme Corp: $1,500.25, effective Mon, June 2, 2025');
    inBoth(m, 'Acme Corp', '$1,500.25', 'Mon, June 2, 2025', 'ending 0003', '091000010000042');
    inBoth(m, 'Bill INV-1001', '$1,000.00', 'Bill INV-1002', '$500.25');
    await expect(
      renderTemplate('remittance-advice', { ...samples['remittance-advice'], accountLast4: '71000003' }, ctx),
    ).rejects.toThrow();
    await expect(
      renderTemplate('remittance-advice', { ...samples['remittance-advice'], accountLast4: '00003' }, ctx),
    ).rejects.toThrow();
  });

  it('vendor-banking-change-notice: tails old and new, who and when, and the "This was not me" button', async () => {
    const m = await renderTemplate(
      'vendor-banking-change-notice',
      samples['vendor-banking-change-notice'],
      ctx,
    );
    expect(m.subject).toBe('Your bank details with Acme Corp were changed');
    inBoth(
      m,
      'account ending 1004 (routing ending 0025)',
      'account ending 6666 (routing ending 0021), checking',
    );
    inBoth(m, 'Morgan Moderator', 'This was not me', 'June 17, 2025 at 10:30 UTC');
    expect(m.html).toContain(`href="${escapeHtml(ACTION)}"`);
  });

  it('refuses more than a tail of a bank number in a vendor mail', async () => {
    const notice = samples['vendor-banking-change-notice'];
    await expect(
      renderTemplate(
        'vendor-banking-change-notice',
        { ...notice, next: { routing: '0021', account: '66666666666' } },
        ctx,
      ),
    ).rejects.toThrow();
    await expect(
      renderTemplate(
        'vendor-micro-deposits',
        { ...samples['vendor-micro-deposits'], next: { routing: '111000025', account: null } },
        ctx,
      ),
    ).rejects.toThrow();
  });

  it('vendor-banking-change-frozen: the ADMINs hear which change, of whom, and where to reject it', async () => {
    const m = await renderTemplate(
      'vendor-banking-change-frozen',
      samples['vendor-banking-change-frozen'],
      ctx,
    );
    expect(m.subject).toBe('Alert: Paper Supply Co (Acme Corp) says a bank details change was not theirs');
    inBoth(
      m,
      'none on record',
      'account ending 6666',
      'Morgan Moderator',
      'https://billflow.example.com/vendors/42',
    );
  });

  it('vendor-micro-deposits: the new account’s tail, when the deposits arrive, the tries, and the button', async () => {
    const m = await renderTemplate('vendor-micro-deposits', samples['vendor-micro-deposits'], ctx);
    expect(m.subject).toBe('Confirm your new bank account with Acme Corp');
    inBoth(m, 'account ending 6666', 'Wed, June 4, 2025', '3 wrong tries', 'Enter the amounts');
    expect(m.html).toContain(`href="${escapeHtml(ACTION)}"`);
  });

  it('payment-completed sums up the vendors past the listed ones in one line', async () => {
    const vendors = Array.from({ length: 30 }, (_, i) => ({ name: `Vendor ${i}`, amountCents: 100 }));
    const m = await renderTemplate(
      'payment-completed',
      { ...samples['payment-completed'], vendors, totalCents: 3000 },
      ctx,
    );
    expect(m.text).toContain('- Vendor 24: $1.00');
    expect(m.text).not.toContain('Vendor 25');
    expect(m.text).toContain('- and 5 more vendors: $5.00');
  });

  it.each(Object.keys(samples) as MailTemplateName[])(
    '%s escapes HTML in every value that comes from QuickBooks',
    async (name) => {
      const data = {
        ...samples[name],
        companyName: EVIL,
        ...('managerName' in samples[name] ? { managerName: EVIL } : {}),
        ...('fileName' in samples[name] ? { fileName: EVIL } : {}),
        ...(name === 'payment-completed' ? { vendors: [{ name: EVIL, amountCents: 1 }] } : {}),
      } as MailTemplateData<typeof name>;
      const m = await renderTemplate(name, data, ctx);
      expect(m.html).not.toMatch(/<script|<img|onerror=alert\(1\)>/i);
      expect(m.html).toContain('Acme &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Sons&#39;');
      // The text part is plain text: the value as it is, on one line.
      expect(m.text).toContain(EVIL);
      expect(m.subject).toContain(EVIL);
    },
  );

  it('refuses an action URL that is not a web link', async () => {
    await expect(
      renderTemplate(
        'bank-upload-requested',
        { ...samples['bank-upload-requested'], actionUrl: 'javascript:alert(1)' },
        ctx,
      ),
    ).rejects.toThrow();
  });

  it('refuses data outside the contract (an amount in dollars with cents)', async () => {
    await expect(
      renderTemplate('approval-assigned', { ...samples['approval-assigned'], amountCents: 12.5 }, ctx),
    ).rejects.toThrow();
  });

  it('puts no remote resource into a message (no web fonts, no images)', async () => {
    for (const name of Object.keys(mailTemplates) as MailTemplateName[]) {
      const m = await renderTemplate(name, samples[name] as never, ctx);
      expect(m.html).not.toMatch(/fonts\.googleapis|<img|<link [^>]*href="http/i);
    }
  });
});

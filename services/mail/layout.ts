// One layout for every e-mail: a template says what the message holds (plain text values), and this
// file writes it twice, as MJML rendered to HTML and as the plain-text alternative, so the two parts
// always carry the same words. Templates never write markup: every value is escaped here, once.
import type mjml2htmlFn from 'mjml';
import { escapeHtml, oneLine } from './format.js';

/** What a template fills in. Every string is plain text (escaped when it goes into the HTML). */
export interface MailContent {
  subject: string;
  /** The line mail clients show beside the subject in a list. */
  preview: string;
  heading: string;
  paragraphs: readonly string[];
  /** Label and value pairs (file name, total, …), shown as a small table. */
  facts?: ReadonlyArray<readonly [label: string, value: string]>;
  /** A list of lines with an amount each (vendors paid), under its caption. */
  lines?: { caption: string; rows: ReadonlyArray<readonly [name: string, amount: string]> };
  /** The call to action. */
  button?: { label: string; url: string };
  /** A secondary link (to the approval). */
  link?: { label: string; url: string };
  /** Small print under the message (how long a link works). */
  note?: string;
}

export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

const FONT = "-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";
const INK = '#111827';
const MUTED = '#6b7280';
const ACCENT = '#1d4ed8';
const FOOTER =
  'Billflow · bill payments back office. This message was sent automatically; replies are not read.';

/** Only web links go into a message (never `javascript:` or `data:`). */
function webUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new Error('A link in an e-mail must be an http(s) URL');
  return parsed.toString();
}

const esc = (s: string) => escapeHtml(oneLine(s));

function mjmlOf(c: MailContent): string {
  const facts = c.facts?.length
    ? `<mj-table padding="8px 25px" font-size="14px" color="${INK}">${c.facts
        .map(
          ([label, value]) =>
            `<tr><td style="padding:4px 12px 4px 0;color:${MUTED};white-space:nowrap;vertical-align:top">${esc(label)}</td><td style="padding:4px 0;font-weight:600">${esc(value)}</td></tr>`,
        )
        .join('')}</mj-table>`
    : '';
  const lines = c.lines?.rows.length
    ? `<mj-text padding="16px 25px 4px" font-weight="600">${esc(c.lines.caption)}</mj-text>` +
      `<mj-table padding="0 25px 8px" font-size="14px" color="${INK}">${c.lines.rows
        .map(
          ([name, amount]) =>
            `<tr><td style="padding:4px 12px 4px 0;border-bottom:1px solid #e5e7eb">${esc(name)}</td><td style="padding:4px 0;border-bottom:1px solid #e5e7eb;text-align:right;white-space:nowrap">${esc(amount)}</td></tr>`,
        )
        .join('')}</mj-table>`
    : '';
  const button = c.button
    ? `<mj-button href="${escapeHtml(webUrl(c.button.url))}" background-color="${ACCENT}" color="#ffffff" font-weight="600" border-radius="6px" inner-padding="12px 24px" padding="20px 25px">${esc(c.button.label)}</mj-button>`
    : '';
  const link = c.link
    ? `<mj-text><a href="${escapeHtml(webUrl(c.link.url))}" style="color:${ACCENT}">${esc(c.link.label)}</a></mj-text>`
    : '';
  const note = c.note ? `<mj-text font-size="12px" color="${MUTED}">${esc(c.note)}</mj-text>` : '';
  return `<mjml>
  <mj-head>
    <mj-title>${esc(c.subject)}</mj-title>
    <mj-preview>${esc(c.preview)}</mj-preview>
    <mj-attributes>
      <mj-all font-family="${FONT}" />
      <mj-text font-size="15px" line-height="22px" color="${INK}" />
    </mj-attributes>
  </mj-head>
  <mj-body background-color="#f3f4f6">
    <mj-section padding="24px 0 8px"><mj-column>
      <mj-text font-size="18px" font-weight="700" color="${ACCENT}">Billflow</mj-text>
    </mj-column></mj-section>
    <mj-section background-color="#ffffff" border-radius="8px" padding="12px 0"><mj-column>
      <mj-text font-size="20px" font-weight="700" line-height="28px">${esc(c.heading)}</mj-text>
      ${c.paragraphs.map((p) => `<mj-text>${esc(p)}</mj-text>`).join('\n      ')}
      ${facts}
      ${lines}
      ${button}
      ${link}
      ${note}
    </mj-column></mj-section>
    <mj-section padding="8px 0 24px"><mj-column>
      <mj-text font-size="12px" color="${MUTED}" align="center">${esc(FOOTER)}</mj-text>
    </mj-column></mj-section>
  </mj-body>
</mjml>`;
}

function textOf(c: MailContent): string {
  const blocks: string[] = [oneLine(c.heading), ...c.paragraphs.map(oneLine)];
  if (c.facts?.length) blocks.push(c.facts.map(([l, v]) => `${oneLine(l)}: ${oneLine(v)}`).join('\n'));
  if (c.lines?.rows.length)
    blocks.push(
      [
        `${oneLine(c.lines.caption)}:`,
        ...c.lines.rows.map(([n, a]) => `- ${oneLine(n)}: ${oneLine(a)}`),
      ].join('\n'),
    );
  if (c.button) blocks.push(`${oneLine(c.button.label)}:\n${webUrl(c.button.url)}`);
  if (c.link) blocks.push(`${oneLine(c.link.label)}:\n${webUrl(c.link.url)}`);
  if (c.note) blocks.push(oneLine(c.note));
  blocks.push(`--\n${FOOTER}`);
  return `${blocks.join('\n\n')}\n`;
}

// MJML and the HTML tooling under it are the heaviest packages the product loads, and only a process
// that renders a message needs them: loaded at the first message, not by every process (and every
// test file) that imports the modules.
let mjml: Promise<typeof mjml2htmlFn> | null = null;

/** The message's subject, HTML (MJML, strict: a broken template fails its unit test) and text. */
export async function renderMail(content: MailContent): Promise<RenderedMail> {
  mjml ??= import('mjml').then((m) => m.default);
  const mjml2html = await mjml;
  const { html, errors } = await mjml2html(mjmlOf(content), {
    validationLevel: 'strict',
    // No web fonts: nothing in a message loads from elsewhere.
    fonts: {},
    keepComments: false,
  });
  if (errors.length > 0) throw new Error(`MJML: ${errors.map((e) => e.formattedMessage).join('; ')}`);
  return { subject: oneLine(content.subject), html, text: textOf(content) };
}

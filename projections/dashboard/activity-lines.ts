// The activity feed's lines for companies and their approvals: staff care about approvals created,
// approved, rejected, companies connected to QuickBooks and their controls, not only sign-ins.
// `{actor}` stands for the acting person's name, `{subject}` for the company's name: both are filled
// in when the line is rendered, so a forgotten person's name leaves the line like on a user line.
// Only what every list already shows plain goes in: company names and amounts, never a reason's
// free text, an e-mail, a vendor's contact or bank data.
import type { ApprovalEvent } from '../../schema/approvals/events.js';
import type { CompanyEvent } from '../../schema/companies/events.js';
import type { BankingControlEvent } from '../../schema/vendors/events.js';

/** Who may read a line (services/dashboard/activity.ts maps each kind to a permission). */
export type ActivityKind = 'user' | 'company' | 'quickbooks' | 'approval';

export const COMPANY_LINE_EVENTS = [
  'CompanyCreated',
  'CompanyUpdated',
  'CompanyActivated',
  'CompanyDeactivated',
  'CompanyDeleted',
  'CompanyQbConnected',
  'CompanyQbConnectionLost',
  'CompanyQbCredentialsRemoved',
  // The company's control on bank detail changes (stream bankingcontrol-<companyId>): turning it off
  // lets a changed account reach a file unchecked, so staff see who did it.
  'BankingChangeControlSet',
] as const;

export const APPROVAL_LINE_EVENTS = [
  'ApprovalCreated',
  'ApprovalFirstApproved',
  'ApprovalApproved',
  'ApprovalRejected',
  'ApprovalExpired',
  'ApprovalDeleted',
] as const;

const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

export interface CompanyLine {
  kind: ActivityKind;
  template: string;
  /** The acting user: the event's own field where it names one, else the command's user. */
  actorId: number | null;
}

/** The line of a company's or an approval's event, or null for an event that makes none. */
export function companyLineOf(
  e: CompanyEvent | ApprovalEvent | BankingControlEvent,
  commandUserId: number | null,
): CompanyLine | null {
  const who = commandUserId === null ? 'The system' : '{actor}';
  const company = (kind: ActivityKind, template: string): CompanyLine => ({
    kind,
    template,
    actorId: template.includes('{actor}') ? commandUserId : null,
  });
  const approval = (template: string, actorId: number | null): CompanyLine => ({
    kind: 'approval',
    template,
    actorId,
  });
  switch (e.type) {
    case 'CompanyCreated':
      return company(
        'company',
        commandUserId === null ? 'Company {subject} was created' : '{actor} created company {subject}',
      );
    case 'CompanyActivated':
      return company('company', `${who} activated company {subject}`);
    case 'CompanyDeactivated':
      return company('company', `${who} deactivated company {subject}`);
    case 'CompanyDeleted':
      return company('company', `${who} deleted company {subject}`);
    case 'CompanyQbConnected':
      return company(
        'quickbooks',
        commandUserId === null
          ? '{subject} was connected to QuickBooks'
          : '{actor} connected {subject} to QuickBooks',
      );
    case 'CompanyQbConnectionLost':
      return company(
        'quickbooks',
        e.data.status === 'disconnected'
          ? '{subject} was disconnected from QuickBooks'
          : '{subject} lost its QuickBooks connection (QuickBooks kept failing)',
      );
    case 'CompanyQbCredentialsRemoved':
      return company('quickbooks', `${who} disconnected {subject} from QuickBooks`);
    case 'BankingChangeControlSet': {
      const days = `changes flagged for ${e.data.flagDays} days`;
      return company(
        'company',
        e.data.enabled
          ? `${who} set the second look at bank detail changes for {subject}: on, ${days}`
          : `${who} turned off the second look at bank detail changes for {subject}: a changed account is paid without one`,
      );
    }
    case 'ApprovalCreated': {
      const total = e.data.bills.reduce((sum, b) => sum + b.TotalAmt, 0);
      const bills = e.data.bills.length === 1 ? '1 bill' : `${e.data.bills.length} bills`;
      return approval(
        `{actor} created an approval for {subject} (${bills}, ${money.format(total)})`,
        e.data.createdBy,
      );
    }
    case 'ApprovalFirstApproved':
      return approval(
        `{actor} gave the first of two approvals for {subject} (${money.format(e.data.amount)}); a second approver is needed`,
        e.data.byUserId,
      );
    case 'ApprovalApproved':
      return approval(
        e.data.firstApprovedBy === null
          ? '{actor} approved an approval for {subject}'
          : '{actor} gave the second approval for {subject}: approved',
        e.data.byUserId,
      );
    case 'ApprovalRejected':
      return approval('{actor} rejected an approval for {subject}', e.data.byUserId);
    case 'ApprovalExpired':
      return approval('An approval for {subject} expired', null);
    case 'ApprovalDeleted':
      return approval('{actor} deleted an approval for {subject}', e.data.byUserId);
    default:
      return null;
  }
}

// A company's NACHA settings as a file's header needs them, read unsealed from the company's stream
// through its published events (schema/: a module's services do not import another's deciders), and
// whether it sends Same-Day ACH. A missing piece is a problem named for the person who can fix it.
import type { NachaProblem } from '../../schema/approvals/payment-events.js';
import { companyEvents, type NachaSettings } from '../../schema/companies/events.js';
import type { AppServices } from '../app/context.js';
import type { NachaCompany } from '../nacha/payment-file.js';
import { eventDecoder } from '../shared/decider.js';

const decodeCompany = eventDecoder(companyEvents);

const problem = (kind: NachaProblem['kind'], vendorName: string | null, message: string): NachaProblem => ({
  kind,
  vendorName,
  message,
});

/** The company's latest NACHA settings, opened (null: never set, or its key is gone). */
async function nachaSettingsOf(app: AppServices, companyId: number): Promise<NachaSettings | null> {
  const { events } = await app.store.readStream(`company-${companyId}`);
  let settings: NachaSettings | null = null;
  for (const stored of events) {
    if (stored.type !== 'CompanyNachaConfigured') continue;
    const e = decodeCompany(stored);
    if (e.type === 'CompanyNachaConfigured') {
      const { companyId: _c, at: _a, ...rest } = e.data;
      settings = rest;
    }
  }
  return settings;
}

/** Whether the company sends Same-Day ACH, as its stream last says (off by default). */
export async function sameDayAchOf(app: AppServices, companyId: number): Promise<boolean> {
  const { events } = await app.store.readStream(`company-${companyId}`);
  let on = false;
  for (const stored of events) {
    if (stored.type !== 'CompanySameDayAchSet') continue;
    const e = decodeCompany(stored);
    if (e.type === 'CompanySameDayAchSet') on = e.data.sameDayAch;
  }
  return on;
}

/** The company's NACHA settings as the library takes them, or the problem that stops a file. */
export async function companyForNacha(
  app: AppServices,
  companyId: number,
): Promise<{ company: NachaCompany; connected: boolean } | { problem: NachaProblem }> {
  const [row, nacha] = await Promise.all([
    app.db
      .selectFrom('companies')
      .select(['name', 'deleted_at', 'qb_connection_status'])
      .where('id', '=', companyId)
      .executeTakeFirst(),
    nachaSettingsOf(app, companyId),
  ]);
  if (!row || row.deleted_at !== null)
    return { problem: problem('company-settings', null, 'The company no longer exists') };
  const name = row.name;
  if (!nacha)
    return {
      problem: problem(
        'company-settings',
        null,
        `${name} has no NACHA settings: enter its bank, routing and account numbers and tax id on the company's NACHA form`,
      ),
    };
  if (!nacha.bankAccountNumber)
    return {
      problem: problem(
        'company-settings',
        null,
        `${name}'s bank account number can no longer be read: enter it again on the company's NACHA form`,
      ),
    };
  return {
    company: { ...nacha, companyName: name },
    connected: row.qb_connection_status === 'connected',
  };
}

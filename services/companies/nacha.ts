// A company's NACHA settings: what its ACH files say; the account number is shown masked
// and kept when sent back masked.
import { maskAccountNumber } from '../../projections/companies/companies.js';
import { NachaConfigInput, SameDayAchInput } from '../../schema/companies/commands.js';
import type { NachaSettings } from '../../schema/companies/events.js';
import type { AppServices } from '../app/context.js';
import { type Actor, authorize } from '../auth/permissions.js';
import { AppError, parseInput } from '../shared/errors.js';
import { answer, load, run } from './company-command.js';
import { type CompanyDto, parseId } from './company-rows.js';

/** NACHA text as a bank reads it: printable ASCII, upper case (accents dropped). */
const asNachaText = (s: string, max: number) =>
  s
    .normalize('NFKD')
    .replace(/[^\x20-\x7E]/g, '')
    .toUpperCase()
    .trim()
    .slice(0, max);

export async function configureNacha(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<CompanyDto> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const data = parseInput(NachaConfigInput, input);
  const state = await load(app, companyId);
  const stored = state.nacha?.bankAccountNumber ?? null;
  // The API shows the number masked: sent back unchanged (or left out), the stored one stays.
  const keep =
    data.bankAccountNumber === undefined ||
    data.bankAccountNumber === '' ||
    data.bankAccountNumber.includes('*');
  if (
    keep &&
    stored &&
    data.bankAccountNumber?.includes('*') &&
    data.bankAccountNumber !== maskAccountNumber(stored)
  )
    throw new AppError('VALIDATION', 'Account number is required', [
      { field: 'bankAccountNumber', message: 'Enter the full account number to change it' },
    ]);
  const bankAccountNumber = keep ? stored : data.bankAccountNumber!.toUpperCase();
  if (!bankAccountNumber)
    throw new AppError('VALIDATION', 'Account number is required', [
      { field: 'bankAccountNumber', message: 'Account number is required' },
    ]);
  const settings: NachaSettings = {
    ...data,
    bankAccountNumber,
    immediateOriginName: data.immediateOriginName ?? asNachaText(state.details!.name, 23),
  };
  const r = await run(app, actor, companyId, {
    type: 'ConfigureNacha',
    settings,
    now: new Date().toISOString(),
  });
  return answer(app, companyId, r.position);
}

/**
 * Turns Same-Day ACH on or off (ADMIN): on, a file made before the same-day deadline is effective
 * the same day, marked for the 17:00 settlement (services/nacha/effective-date.ts).
 */
export async function setSameDayAch(
  app: AppServices,
  actor: Actor | null,
  id: unknown,
  input: unknown,
): Promise<CompanyDto> {
  authorize(actor, 'companies.write');
  const companyId = parseId(id);
  const { sameDayAch } = parseInput(SameDayAchInput, input);
  await load(app, companyId);
  const r = await run(app, actor, companyId, {
    type: 'SetSameDayAch',
    sameDayAch,
    now: new Date().toISOString(),
  });
  return answer(app, companyId, r.position);
}

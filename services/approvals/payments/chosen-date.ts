// The effective entry date an approver or Regenerate asks for, checked before anything is recorded:
// refused (400, the field named) when it is not a banking day ahead the company may pay on.
import type { AppServices } from '../../app/context.js';
import { chosenDateProblem } from '../../nacha/effective-date.js';
import { AppError } from '../../shared/errors.js';
import { paymentClock } from '../../shared/payment-clock.js';

/** The chosen date when it holds now, undefined when none was chosen; else a 400 naming why. */
export async function checkedEffectiveDate(
  app: AppServices,
  companyId: number,
  date: string | undefined,
): Promise<string | undefined> {
  if (!date) return undefined;
  const problem = chosenDateProblem(date, paymentClock.now(), await app.achFiles.sameDayAch(companyId));
  if (problem) throw new AppError('VALIDATION', problem, [{ field: 'effectiveDate', message: problem }]);
  return date;
}

// The control form's checks, with the server's words (schema/vendors/commands.ts BankingControlInput
// and the control's decider), so a mistake shows at its field before anything is sent.

export function validateBankingControl(v: {
  turningOff: boolean;
  flagDays: string;
  reason: string;
}): Partial<Record<'flagDays' | 'reason', string>> {
  const errors: Partial<Record<'flagDays' | 'reason', string>> = {};
  const days = v.flagDays.trim();
  if (!/^\d+$/.test(days)) errors.flagDays = 'flagDays must be a whole number of days';
  else if (Number(days) < 1) errors.flagDays = 'flagDays must be at least 1';
  else if (Number(days) > 365) errors.flagDays = 'flagDays must be at most 365';
  if (v.turningOff && v.reason.trim() === '')
    errors.reason = 'Please give a reason for turning the control off';
  else if (v.reason.trim().length > 500) errors.reason = 'The reason must be 500 characters or less';
  return errors;
}

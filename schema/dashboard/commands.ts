// The dashboard module's inputs: the activity feed's reads (the REST query documents them too).
import { z } from 'zod';

/** GET /api/company/companies/{id}/activity and `companyActivity`: how many lines, newest first. */
export const CompanyActivityInput = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
export type CompanyActivityInput = z.input<typeof CompanyActivityInput>;

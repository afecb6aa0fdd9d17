// The approval's audit trail of who took its record away: a bundle exported for an auditor
// (`npm run audit -- export`, or the detail's download; services/approvals/audit-bundle.ts). On the
// approval's own stream, so its history shows it; spread into `approvalEvents` (events.ts). No
// personal field: ids and a time.
import { z } from 'zod';

export const approvalAuditEvents = {
  ApprovalAuditExported: {
    version: 1,
    schema: z.object({
      approvalId: z.string(),
      companyId: z.number().int().positive(),
      /** The user who asked for it; null when exported from the command line (an operator). */
      byUserId: z.number().int().positive().nullable(),
      at: z.string(),
    }),
  },
} as const;

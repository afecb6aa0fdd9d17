// Vendors: synced from a company's QuickBooks, with the bank details
// Billflow keeps for ACH. ADMIN and MODERATOR work with them; only they may see numbers unmasked.
import type pg from 'pg';
import { bankingChangesProjection } from '../../projections/vendors/banking-changes.js';
import { bankingVerificationsProjection } from '../../projections/vendors/banking-verifications.js';
import { vendorSyncsProjection, vendorsProjection } from '../../projections/vendors/vendors.js';
import * as vendorCommands from '../../schema/vendors/commands.js';
import { bankingControlEvents, vendorEvents, vendorSyncEvents } from '../../schema/vendors/events.js';
import {
  VENDOR_MAIL_QUEUE,
  vendorMailJobHandlers,
  vendorMailProcessManager,
} from '../../workers/vendors/banking-mail.js';
import { VENDORS_QUEUE, vendorsJobHandlers, vendorsProcessManager } from '../../workers/vendors/reactions.js';
import { BillCopy } from '../quickbooks/bill-copy.js';
import { CdcMarks } from '../quickbooks/cdc-marks.js';
import { vendorEndpoints, vendorInputs } from '../vendors/endpoints.js';
import { vendorLinkEndpoints } from '../vendors/link-endpoints.js';
import { VENDOR_IDS_SEQUENCE } from '../vendors/sync-run.js';
import '../vendors/api/graphql/vendor.js';
import '../vendors/api/graphql/vendor-verification.js';
import { quickbooksWebhookRoutes } from '../vendors/api/rest/quickbooks-webhook-routes.js';
import { vendorRoutes } from '../vendors/api/rest/vendor-routes.js';
import { vendorVerificationRoutes } from '../vendors/api/rest/vendor-verification-routes.js';
import { defineModule } from './module.js';

// Vendors and banking are ADMIN's and MODERATOR's; unmasked numbers too.
const STAFF = ['ADMIN', 'MODERATOR'] as const;
const permissions = {
  'vendors.read': STAFF,
  'vendors.write': STAFF,
  'vendors.unmask': STAFF,
  // Forgetting erases a vendor's data for good: the administrator's call alone.
  'vendors.forget': ['ADMIN'] as const,
  // A CSV with every full bank number in it: the administrator's call alone, and on record.
  'vendors.exportFull': ['ADMIN'] as const,
  // A held bank detail change: approved or rejected by staff other than its maker (the decider).
  'vendors.approveBankingChange': STAFF,
  // The company's control on bank detail changes: turning it off is the administrator's call.
  'vendors.bankingControl': ['ADMIN'] as const,
  // A micro-deposit check of a held change sent to its new account, and its file's download.
  'vendors.microDeposits': STAFF,
};

type VendorPermissions = Record<keyof typeof permissions, unknown>;
declare module '../auth/permissions.js' {
  interface PermissionTable extends VendorPermissions {}
}

export const vendorModule = defineModule({
  name: 'vendor',
  folder: 'vendors',
  events: { ...vendorEvents, ...vendorSyncEvents, ...bankingControlEvents },
  forgettingEvents: ['VendorForgotten'],
  commands: vendorCommands,
  permissions,
  projections: [
    vendorsProjection,
    vendorSyncsProjection,
    bankingChangesProjection,
    bankingVerificationsProjection,
  ],
  processManagers: [vendorsProcessManager, vendorMailProcessManager],
  jobHandlers: { [VENDORS_QUEUE]: vendorsJobHandlers, [VENDOR_MAIL_QUEUE]: vendorMailJobHandlers },
  endpoints: [...vendorEndpoints, ...vendorLinkEndpoints],
  graphqlInputs: vendorInputs,
  routes: [vendorRoutes, vendorVerificationRoutes, quickbooksWebhookRoutes],
  storage: async (pool: pg.Pool) => {
    await pool.query(`CREATE SEQUENCE IF NOT EXISTS ${VENDOR_IDS_SEQUENCE}`);
    await CdcMarks.setup(pool);
    await BillCopy.setup(pool);
  },
});

// Payments: the ACH files and what the network does with their entries. Each file written (its date,
// cut-off window, modifier and trace numbers at its ODFI, never reused, so a return names one entry)
// and kept sealed, its delivery, the files the bank sends back (returns, notifications of change: read
// once, kept sealed), and each entry's fate. The
// approval keeps its own statuses as milestones; the bank's answers are this module's streams.
import { paymentEntriesProjection } from '../../projections/payments/payment-entries.js';
import { nachaFileDayEvents, paymentsEvents } from '../../schema/payments/events.js';
import '../payments/api/graphql/attention.js';
import '../payments/api/graphql/inbound-file.js';
import {
  BANK_QUEUE,
  bankDeliveryProcessManager,
  bankJobHandlers,
  POLL_EVERY_MS,
} from '../../workers/payments/delivery.js';
import {
  REMITTANCE_QUEUE,
  remittanceJobHandlers,
  remittanceProcessManager,
} from '../../workers/payments/remittance.js';
import { paymentInboundRoutes } from '../payments/api/rest/inbound-routes.js';
import { paymentsEndpoints } from '../payments/endpoints.js';
import { InboundFileInput } from '../payments/inbound.js';
import { setupNachaFiles } from '../payments/nacha-files.js';
import { SendNowInput } from '../payments/send-now.js';
import { defineModule } from './module.js';

// Reading a bank file changes money's state (a return reopens bills): ADMIN only. Staff who act on
// approvals see what came back.
const permissions = {
  'payments.read': ['ADMIN', 'MODERATOR'] as const,
  'payments.inbound': ['ADMIN'] as const,
  // Sending a company's waiting files ahead of their window moves money sooner: ADMIN only.
  'payments.deliver': ['ADMIN'] as const,
};

type PaymentsPermissions = Record<keyof typeof permissions, unknown>;
declare module '../auth/permissions.js' {
  interface PermissionTable extends PaymentsPermissions {}
}

export const paymentModule = defineModule({
  name: 'payment',
  folder: 'payments',
  events: { ...paymentsEvents, ...nachaFileDayEvents },
  commands: { InboundFileInput, SendNowInput },
  permissions,
  projections: [paymentEntriesProjection],
  routes: [paymentInboundRoutes],
  endpoints: paymentsEndpoints,
  processManagers: [bankDeliveryProcessManager, remittanceProcessManager],
  jobHandlers: { [BANK_QUEUE]: bankJobHandlers, [REMITTANCE_QUEUE]: remittanceJobHandlers },
  // Every SFTP company's outbox (answers, returns, notifications of change), read by whichever worker.
  schedules: [{ queue: BANK_QUEUE, name: 'poll-banks', every: POLL_EVERY_MS }],
  // The stored ACH files (sealed with the company's key), made at start under the set-up lock.
  storage: setupNachaFiles,
});

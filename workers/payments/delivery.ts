// The bank delivery process manager (queue `bank`, from the beginning of the log: a file waiting for
// its window must be sent even if it was made before this ran): a file made for an approval is
// scheduled for its company's next cut-off window when the company sends over SFTP
// (schedule-delivery), and sent at the window (deliver). A repeating job reads every SFTP company's
// outbox (poll-banks). Job ids derive from the event, so a replayed event enqueues nothing twice;
// each job reports with a command whose id is the job id.
import { approvalEvents } from '../../schema/approvals/events.js';
import { paymentsEvents } from '../../schema/payments/events.js';
import { deliverFile, pollBank, scheduleDelivery } from '../../services/payments/delivery.js';
import { deliveryDecider, deliveryStreamId } from '../../services/payments/delivery-decider.js';
import { eventDecoder } from '../../services/shared/decider.js';
import { type JobHandler, jobContext, type ProcessManager, reactionJobId } from '../process-manager.js';

export const BANK_QUEUE = 'bank';
/** How often the banks' outboxes are read. */
export const POLL_EVERY_MS = 30_000;

const decode = eventDecoder({ ...approvalEvents, ...paymentsEvents });

export const bankDeliveryProcessManager: ProcessManager = {
  name: 'bank-delivery',
  handles: ['NachaFileGenerated', 'AchDeliveryScheduled', 'AchCutoffTriggered'],
  startAt: 'beginning',
  react(stored) {
    const event = decode(stored);
    const meta = { correlationId: stored.metadata.correlationId ?? null, causationEventId: stored.id };
    const jobId = reactionJobId('bank-delivery', stored);
    if (event.type === 'NachaFileGenerated') {
      const d = event.data;
      return [
        {
          queue: BANK_QUEUE,
          name: 'schedule-delivery',
          jobId,
          data: {
            ...meta,
            approvalId: d.approvalId,
            companyId: d.companyId,
            fileId: d.fileId,
            version: d.version,
            fileName: d.fileName,
            effectiveDate: d.effectiveDate,
            sameDay: d.sameDay ?? false,
            ...(d.window ? { window: d.window } : {}),
          },
        },
      ];
    }
    if (event.type === 'AchDeliveryScheduled') {
      const d = event.data;
      return [
        {
          queue: BANK_QUEUE,
          name: 'deliver',
          jobId,
          data: { ...meta, approvalId: d.approvalId, fileId: d.fileId },
          delayMs: Math.max(0, Date.parse(d.windowAt) - Date.now()),
        },
      ];
    }
    if (event.type === 'AchCutoffTriggered')
      return event.data.deliveries.map((d, n) => ({
        queue: BANK_QUEUE,
        name: 'deliver',
        jobId: reactionJobId('bank-delivery', stored, n),
        data: { ...meta, approvalId: d.approvalId, fileId: d.fileId },
      }));
    return [];
  },
};

export const bankJobHandlers: Record<string, JobHandler> = {
  async 'schedule-delivery'(app, job) {
    const d = job.data as {
      approvalId: string;
      companyId: number;
      fileId: string;
      version: number;
      fileName: string;
      effectiveDate: string;
      sameDay: boolean;
      window?: { at: string; file: number; via: 'manual' | 'sftp' };
    };
    const pending = await scheduleDelivery(app, d, jobContext(job));
    return { scheduledFor: pending?.windowAt ?? null };
  },
  async deliver(app, job) {
    const { approvalId, fileId } = job.data as { approvalId: string; fileId: string };
    const ctx = jobContext(job);
    try {
      return { outcome: await deliverFile(app, approvalId, fileId, ctx) };
    } catch (err) {
      // Attempts used up: the failure is recorded on the delivery (the approval shows it), in words.
      if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) {
        const reason = `The upload to the bank failed ${job.attemptsMade + 1} times: ${(err as Error).message}`;
        const { state } = await app.commands.load(deliveryDecider, deliveryStreamId(approvalId));
        if (state.pending?.fileId === fileId)
          await app.commands.handle(
            deliveryDecider,
            deliveryStreamId(approvalId),
            {
              type: 'RecordDeliveryFailed',
              facts: {
                approvalId,
                companyId: state.pending.companyId,
                fileId,
                reason,
                at: new Date().toISOString(),
              },
            },
            { ...ctx, commandId: `${job.id}:failed` },
          );
      }
      throw err;
    }
  },
  async 'poll-banks'(app, job) {
    const ctx = { ...jobContext(job, { jobCommandId: false }) };
    const out: Record<number, unknown> = {};
    for (const companyId of await app.bankConnections.sftpCompanies()) {
      // One bank down does not stop the others: its error is the outcome, read again next time.
      out[companyId] = await pollBank(app, companyId, ctx).catch((err: Error) => ({ error: err.message }));
    }
    return out;
  },
};

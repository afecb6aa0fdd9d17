// The job of the `payments` process manager for a file on its way to the bank over SFTP (the payments
// module's delivery events): bank-delivery records what happened on the approval. Delivered: the bank
// upload, by the system, with the file's name, size and sha256 (then the payment-completed links go
// out as after any bank upload). Refused by the bank, or not sent: a payment problem with its reason,
// in the bank's own words where it gave some. Reports back with commands whose ids are the job's.
import type { AppServices } from '../../services/app/context.js';
import { approvalDecider, approvalStreamId } from '../../services/approvals/approval-decider.js';
import { DomainError } from '../../services/shared/domain-errors.js';
import { type JobHandler, jobContext } from '../process-manager.js';

type DeliveryJob =
  | {
      kind: 'delivered';
      approvalId: string;
      fileVersion: number;
      fileName: string;
      size: number;
      sha256: string;
    }
  | { kind: 'refused' | 'failed'; approvalId: string; reason: string };

async function problem(app: AppServices, job: Parameters<JobHandler>[1], approvalId: string, reason: string) {
  await app.commands.handle(
    approvalDecider,
    approvalStreamId(approvalId),
    {
      type: 'RecordPaymentJobFailed',
      job: 'bank-delivery',
      jobId: String(job.id),
      queue: job.queueName,
      reason,
      now: new Date().toISOString(),
    },
    { ...jobContext(job), commandId: `${job.id}-problem` },
  );
}

export const deliveryJobHandlers: Record<string, JobHandler> = {
  async 'bank-delivery'(app, job) {
    const d = job.data as DeliveryJob;
    if (d.kind !== 'delivered') {
      const words =
        d.kind === 'refused' ? 'The bank refused the NACHA file' : 'The NACHA file was not sent to the bank';
      await problem(app, job, d.approvalId, `${words}: ${d.reason}`);
      return { problem: d.kind };
    }
    try {
      await app.commands.handle(
        approvalDecider,
        approvalStreamId(d.approvalId),
        {
          type: 'MarkBankUploaded',
          byUserId: null,
          link: null,
          delivery: { fileVersion: d.fileVersion, fileName: d.fileName, size: d.size, sha256: d.sha256 },
          now: new Date().toISOString(),
        },
        jobContext(job),
      );
      return { recorded: true };
    } catch (err) {
      if (!(err instanceof DomainError) || err.code !== 'CONFLICT') throw err;
      // Someone confirmed the upload by its link first: the bank has the file either way.
      const { state } = await app.commands.load(approvalDecider, approvalStreamId(d.approvalId));
      if (state.status !== 'NACHA_GENERATED' && state.payment.uploadedVersion === d.fileVersion)
        return { recorded: false };
      await problem(app, job, d.approvalId, err.message);
      return { recorded: false, problem: err.message };
    }
  },
};

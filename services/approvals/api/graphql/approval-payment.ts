// The payment half of the Approval type (schema/approvals/payment-answers.ts): the file's processing
// status and problems, the stored files, the QuickBooks payment sync's items, and the penny test's
// answer. Derived from the answers; approval.ts spreads these refs into Approval.
import type { z } from 'zod';
import {
  BankDelivery as BankDeliveryAnswer,
  NachaFileRef as NachaFileRefAnswer,
  PaymentFields,
  PaymentPrerequisite as PaymentPrerequisiteAnswer,
  PaymentProblem as PaymentProblemAnswer,
  PennyTestResult as PennyTestResultAnswer,
  QbSyncDetailItem as QbSyncDetailItemAnswer,
} from '../../../../schema/approvals/payment-answers.js';
import {
  NachaProblem as NachaProblemAnswer,
  QB_SYNC_STATUSES,
} from '../../../../schema/approvals/payment-events.js';
import { PaymentEntryOutcome as PaymentEntryOutcomeAnswer } from '../../../../schema/payments/answers.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';

type Fields = z.infer<typeof PaymentFields>;

export const NachaProcessingStatusEnum = builder.enumType('NachaProcessingStatus', {
  values: ['REQUESTED', 'GENERATED', 'FAILED'] as const,
  description: 'REQUESTED: queued or generating; GENERATED: the file exists; FAILED: waiting on a fix',
});
export const QbSyncStatusEnum = builder.enumType('QbPaymentSyncStatus', { values: QB_SYNC_STATUSES });
// The kinds are lower case with dashes ('vendor-banking', 'penny-test'), which GraphQL enum names
// cannot be: named VENDOR_BANKING, … in GraphQL, their values as REST answers them.
const dashedEnum = (name: string, values: readonly string[]) =>
  builder.enumType(name, {
    values: Object.fromEntries(values.map((v) => [v.toUpperCase().replace(/-/g, '_'), { value: v }])),
  });
const ProblemKindEnum = dashedEnum('NachaProblemKind', NachaProblemAnswer.shape.kind.options);
const FileKindEnum = dashedEnum('NachaFileKind', NachaFileRefAnswer.shape.kind.options);

const NachaProblemType = builder
  .objectRef<Fields['nachaProblems'][number]>('NachaProblem')
  .implement({ fields: (t) => answerFields(t, NachaProblemAnswer, { refs: { kind: ProblemKindEnum } }) });

const SkippedBillType = builder
  .objectRef<Fields['nachaSkippedBills'][number]>('NachaSkippedBill')
  .implement({ fields: (t) => answerFields(t, PaymentFields.shape.nachaSkippedBills.element) });

const NachaFileType = builder.objectRef<z.infer<typeof NachaFileRefAnswer>>('NachaFile').implement({
  fields: (t) =>
    answerFields(t, NachaFileRefAnswer, {
      refs: { kind: FileKindEnum },
      scalars: { generatedAt: 'DateTime' },
    }),
});

const PaymentProblemKindEnum = dashedEnum('PaymentProblemKind', PaymentProblemAnswer.shape.kind.options);
const PaymentProblemRetryEnum = dashedEnum(
  'PaymentProblemRetry',
  PaymentProblemAnswer.shape.retry.unwrap().options,
);
const PaymentProblemType = builder
  .objectRef<z.infer<typeof PaymentProblemAnswer>>('PaymentProblem')
  .implement({
    fields: (t) =>
      answerFields(t, PaymentProblemAnswer, {
        refs: { kind: PaymentProblemKindEnum, retry: PaymentProblemRetryEnum },
      }),
  });

const PrerequisiteKindEnum = dashedEnum(
  'PaymentPrerequisiteKind',
  PaymentPrerequisiteAnswer.shape.kind.options,
);
const PaymentPrerequisiteType = builder
  .objectRef<z.infer<typeof PaymentPrerequisiteAnswer>>('PaymentPrerequisite')
  .implement({
    fields: (t) => answerFields(t, PaymentPrerequisiteAnswer, { refs: { kind: PrerequisiteKindEnum } }),
  });

const BankEntryStatusEnum = builder.enumType('BankEntryStatus', { values: ['sent', 'returned'] as const });
export const BankPaymentStateEnum = builder.enumType('BankPaymentState', {
  values: ['RETURNED', 'PARTLY_RETURNED'] as const,
  description: 'What the bank did after the file: every vendor’s entry came back, or some',
});
const BankEntryType = builder
  .objectRef<z.infer<typeof PaymentEntryOutcomeAnswer>>('BankEntryOutcome')
  .implement({
    description:
      'An entry of the approval’s file that the bank returned or sent a notification of change for',
    fields: (t) =>
      answerFields(t, PaymentEntryOutcomeAnswer, {
        refs: { status: BankEntryStatusEnum },
        scalars: { returnedAt: 'DateTime' },
      }),
  });

const BankDeliveryStatusEnum = builder.enumType('BankDeliveryStatus', {
  values: BankDeliveryAnswer.shape.status.options,
  description: 'scheduled: waiting for the cut-off window; delivered: in the bank’s inbox; failed: not sent',
});
const BankAnswerEnum = builder.enumType('BankAnswer', {
  values: BankDeliveryAnswer.shape.bankAnswer.unwrap().options,
});
const BankDeliveryType = builder.objectRef<z.infer<typeof BankDeliveryAnswer>>('BankDelivery').implement({
  description: 'The approval’s file on its way to the bank over SFTP, sent by the system at a cut-off window',
  fields: (t) =>
    answerFields(t, BankDeliveryAnswer, {
      refs: { status: BankDeliveryStatusEnum, bankAnswer: BankAnswerEnum },
      scalars: { windowAt: 'DateTime', deliveredAt: 'DateTime' },
    }),
});

const QbSyncItemType = builder
  .objectRef<z.infer<typeof QbSyncDetailItemAnswer>>('QbSyncDetailItem')
  .implement({ fields: (t) => answerFields(t, QbSyncDetailItemAnswer) });

export const PennyTestResultType = builder
  .objectRef<z.infer<typeof PennyTestResultAnswer>>('PennyTestResult')
  .implement({ fields: (t) => answerFields(t, PennyTestResultAnswer) });

/** The refs and scalars of the payment fields, for Approval's answerFields. */
export const PAYMENT_REFS = {
  nachaProcessingStatus: NachaProcessingStatusEnum,
  nachaProblems: NachaProblemType,
  nachaSkippedBills: SkippedBillType,
  nachaFiles: NachaFileType,
  qbPaymentSyncStatus: QbSyncStatusEnum,
  qbPaymentSyncItems: QbSyncItemType,
  paymentProblem: PaymentProblemType,
  paymentPrerequisites: PaymentPrerequisiteType,
  bankEntries: BankEntryType,
  bankDelivery: BankDeliveryType,
  bankPaymentState: BankPaymentStateEnum,
} as const;

export const PAYMENT_DATE_TIMES = {
  nachaGeneratedAt: 'DateTime',
  pennyTestGeneratedAt: 'DateTime',
  bankUploadedAt: 'DateTime',
  paymentCompletedAt: 'DateTime',
  qbPaymentSyncAt: 'DateTime',
} as const;

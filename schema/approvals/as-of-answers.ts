// Time travel's answer: the approval as it stood after one event of its stream (the detail's shape),
// which event that was, every step of the stream to scrub through, and the personal fields that can no
// longer be read (their subject was forgotten). Its query: a log position or a time, not both.
import { z } from 'zod';
import { named } from '../shared/answers.js';
import { ApprovalData } from './answers.js';

/** One event of the approval's stream: where it is in the log, when, and what it was. */
export const ApprovalStep = z.object({
  position: z.string().describe('The event’s position in the global log (opaque, orders as text)'),
  at: z.string().describe('When it happened (ISO 8601)'),
  type: z.string().describe('The event type, e.g. ApprovalApproved'),
  version: z.number().int().describe('Its version in the approval’s stream, 1-based'),
});

export const ApprovalAsOfPoint = z.object({
  position: z.string(),
  at: z.string(),
  eventType: z.string(),
  step: z.number().int().describe('1-based index of this step among `steps`'),
  steps: z.number().int().describe('How many steps the stream has now'),
  deleted: z.boolean().describe('The approval had been deleted by then'),
});

export const ApprovalAsOf = named(
  'ApprovalAsOf',
  z.object({
    approval: ApprovalData,
    asOf: ApprovalAsOfPoint,
    steps: z.array(ApprovalStep),
    erased: z
      .array(z.string())
      .describe('Personal fields whose subject was forgotten (shown empty), e.g. vendorContacts, recipients'),
  }),
);

/** Where to stop: after the event at this position, or the last event at or before this time. */
export const ApprovalAsOfInput = z.object({
  position: z
    .string()
    .max(64)
    .regex(
      /^(E\d{4}:)?\d+:\d+$/,
      'position must be a log position such as 00000000000000000042:00000000000000000042',
    )
    .optional(),
  at: z.iso.datetime({ offset: true, message: 'at must be an ISO 8601 date-time' }).optional(),
});

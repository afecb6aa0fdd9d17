// Time travel in GraphQL: `approvalAsOf(id, asOf)` answers the approval as it stood after one event
// with the step shown and every step to scrub through; `approval(id, asOf)` (approval-queries.ts)
// answers only the approval, in the detail's type. Both read services/approvals/as-of.ts.
import {
  ApprovalAsOfPoint as ApprovalAsOfPointAnswer,
  ApprovalStep as ApprovalStepAnswer,
} from '../../../../schema/approvals/as-of-answers.js';
import { withoutNulls } from '../../../app/endpoints.js';
import { answerFields } from '../../../gateway/graphql/answer-fields.js';
import { builder } from '../../../gateway/graphql/builder.js';
import { run } from '../../../gateway/graphql/errors.js';
import {
  type ApprovalAsOfAnswer,
  type ApprovalAsOfQuery,
  type ApprovalStepAnswer as ApprovalStep,
  approvalAsOf,
} from '../../as-of.js';
import { ApprovalRef } from './approval.js';

export const ApprovalAsOfInputType = builder.inputType('ApprovalAsOfInput', {
  description: 'Where to stop: after the event at `position`, or the last event at or before `at`; not both.',
  fields: (t) => ({
    position: t.string({ required: false, description: 'A log position (as ApprovalStep.position)' }),
    at: t.string({ required: false, description: 'An ISO 8601 date-time' }),
  }),
});

const StepType = builder.objectRef<ApprovalStep>('ApprovalStep').implement({
  description: 'One event of the approval’s stream.',
  fields: (t) => answerFields(t, ApprovalStepAnswer, { scalars: { at: 'DateTime' } }),
});

const PointType = builder.objectRef<ApprovalAsOfAnswer['asOf']>('ApprovalAsOfPoint').implement({
  description: 'The event the approval is shown after.',
  fields: (t) => answerFields(t, ApprovalAsOfPointAnswer, { scalars: { at: 'DateTime' } }),
});

const AsOfType = builder.objectRef<ApprovalAsOfAnswer>('ApprovalAsOf').implement({
  description: 'An approval as it stood after one event of its stream (ADMIN, MODERATOR).',
  fields: (t) => ({
    approval: t.field({ type: ApprovalRef, resolve: (a) => a.approval }),
    asOf: t.field({ type: PointType, resolve: (a) => a.asOf }),
    steps: t.field({ type: [StepType], resolve: (a) => a.steps }),
    erased: t.exposeStringList('erased', {
      description: 'Personal fields whose subject was forgotten: shown empty',
    }),
  }),
});

/** The asOf argument as the application function takes it (absent members, not nulls). */
export const asOfQuery = (asOf: { position?: string | null; at?: string | null }): ApprovalAsOfQuery =>
  withoutNulls(asOf) as ApprovalAsOfQuery;

builder.queryField('approvalAsOf', (t) =>
  t.field({
    type: AsOfType,
    description:
      'The approval as it stood after one event, with every step of its stream (ADMIN, MODERATOR). Without asOf: now.',
    args: {
      id: t.arg.string({ required: true }),
      asOf: t.arg({ type: ApprovalAsOfInputType, required: false }),
    },
    resolve: (_, args, ctx) =>
      run(() => approvalAsOf(ctx.app, ctx.actor, args.id, asOfQuery(args.asOf ?? {}))),
  }),
);

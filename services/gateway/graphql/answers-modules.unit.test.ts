// Every GraphQL object type of the users, managers, companies (QuickBooks included), vendors and
// operations modules agrees with the answer it serves (schema/<module>/answers.ts): a field added to
// one and not the other, or a nullability, scalar, enum or list that differs, fails here. Where
// GraphQL differs on purpose, the difference is listed with its reason.
import type { GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as companies from '../../../schema/companies/answers.js';
import * as managers from '../../../schema/managers/answers.js';
import * as operations from '../../../schema/operations/answers.js';
import * as users from '../../../schema/users/answers.js';
import * as vendors from '../../../schema/vendors/answers.js';
import { answerDrift, type DriftOptions } from './answer-drift.js';
import { schema } from './schema.js';

const STATUS_AS_STRING = 'GraphQL has always typed it String; the answer names its values';

/** A bank detail change: its named values are Strings in GraphQL, as the older statuses are. */
const BANKING_CHANGE: DriftOptions = {
  graphqlOnly: { status: STATUS_AS_STRING, source: STATUS_AS_STRING, contactNotice: STATUS_AS_STRING },
  nested: { microDeposits: { graphqlOnly: { status: STATUS_AS_STRING } } },
};

const VENDOR: DriftOptions = {
  graphqlOnly: { isUnmasked: 'Non-null in GraphQL: false where the answer leaves it out (lists)' },
  nested: { pendingBankingChange: BANKING_CHANGE },
};

const cases: Array<[string, z.ZodObject, DriftOptions?]> = [
  ['User', users.User],
  ['UserPage', users.UserPage],
  ['UserStatistics', users.UserStatistics],
  ['UserOverviewStats', users.OverviewStats],
  ['UsersByRole', users.UsersByRole],
  ['Tokens', users.Tokens],
  ['AuthPayload', users.AuthAnswer],
  ['RefreshPayload', users.RefreshAnswer],
  ['Manager', managers.Manager],
  ['ManagerUser', managers.ManagerUser],
  ['ManagerPage', managers.ManagerPage],
  ['Company', companies.Company],
  ['CompanyAssignee', companies.CompanyAssignee],
  [
    'CompanyPage',
    companies.CompanyPage,
    {
      graphqlOnly: {
        data: 'The answer lists Company or CompanyReference by role; GraphQL types both as Company (its fields refuse what a reference lacks), held to Company above',
      },
    },
  ],
  ['QbCredentials', companies.QbCredentials],
  ['QbTokenStatus', companies.QbTokenStatus],
  ['QbBankAccount', companies.QbBankAccount],
  ['Vendor', vendors.Vendor, VENDOR],
  ['VendorPage', vendors.VendorPage, { nested: { data: VENDOR } }],
  ['VendorHistoryEntry', vendors.VendorHistoryEntry],
  ['VendorSync', vendors.VendorSync, { graphqlOnly: { status: STATUS_AS_STRING } }],
  [
    'VendorSyncProgress',
    vendors.VendorSyncProgress,
    { graphqlOnly: { waiting: 'Non-null in GraphQL: false when the notice says nothing of a wait' } },
  ],
  ['OperationsOverview', operations.OperationsOverview],
  ['QueueOverview', operations.QueueOverview],
  ['QueueJobCounts', operations.JobCounts],
  ['FailedJob', operations.FailedJob],
  ['ParkedEvent', operations.ParkedEvent],
  ['DismissedParkedEvent', operations.DismissedParkedEvent],
  ['ParkedEventDismisser', operations.ParkedEventDismisser],
  ['LogConsumer', operations.LogConsumer],
  ['LogHolder', operations.LogHolder],
  ['Usage', operations.Usage],
  ['ServiceStatus', operations.ServiceStatus, { graphqlOnly: { status: STATUS_AS_STRING } }],
  [
    'SystemHealth',
    operations.SystemHealth,
    {
      graphqlOnly: { status: STATUS_AS_STRING },
      nested: {
        database: { graphqlOnly: { status: STATUS_AS_STRING } },
        redis: { graphqlOnly: { status: STATUS_AS_STRING } },
        api: {
          graphqlOnly: {
            status: STATUS_AS_STRING,
            responseTime:
              'ServiceStatus is one type for database, redis and api; only the api always has a time',
          },
        },
      },
    },
  ],
];

const typeNamed = (name: string) => {
  const type = schema.getType(name);
  if (!type) throw new Error(`no GraphQL type ${name}`);
  return type as GraphQLObjectType;
};

describe('the GraphQL types agree with the answers they serve', () => {
  it.each(cases)('%s', (name, answer, options) => {
    expect(answerDrift(typeNamed(name), answer, options)).toEqual([]);
  });

  it('fails when an answer gains a field GraphQL lacks, or GraphQL one the answer lacks', () => {
    expect(answerDrift(typeNamed('User'), users.User.extend({ nickname: z.string() }))).toEqual([
      'nickname: in the answer, not on GraphQL User',
    ]);
    expect(answerDrift(typeNamed('Manager'), managers.Manager.omit({ title: true }))).toEqual([
      'title: on GraphQL Manager, not in the answer',
    ]);
    expect(answerDrift(typeNamed('Vendor'), vendors.Vendor.extend({ bankName: z.string() }), VENDOR)).toEqual(
      ['bankName: GraphQL is nullable, the answer is non-null'],
    );
  });
});

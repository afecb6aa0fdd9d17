// The managers' commands, each declared once (services/app/endpoints.ts): create, update, delete,
// link and unlink a user. The gateway makes each one's REST route (/api/manager/*), GraphQL mutation
// and OpenAPI entry.
import { z } from 'zod';
import { Manager } from '../../schema/managers/answers.js';
import { LinkUserInput, ManagerInput } from '../../schema/managers/commands.js';
import { byId, declareCommand, type GraphQLInputDeclaration, type WithId } from '../app/endpoints.js';
import {
  createManager,
  deleteManager,
  linkManagerUser,
  unlinkManagerUser,
  updateManager,
} from './managers.js';

const M = '/api/manager/managers';
const TAGS = ['managers'];
const ManagerIdParams = z.object({ id: z.string().regex(/^\d+$/).describe('Manager id') });
/** Managers are ADMIN's records, none kept from them: any live manager, any active user to link. */
const ANY_MANAGER = 'any live manager';

export const managerInputs: GraphQLInputDeclaration[] = [
  {
    name: 'ManagerInput',
    fields: {
      firstName: 'String!',
      lastName: 'String!',
      email: 'String!',
      phone: 'String',
      title: 'String',
      userId: { type: 'Int', description: 'Absent or null: not linked.' },
    },
  },
];

export const managerEndpoints = [
  declareCommand({
    name: 'CreateManager',
    permission: 'managers.write',
    scope: 'any manager; the linked user, if any, active and not linked to another manager',
    run: (app, actor, body: unknown) => createManager(app, actor, body),
    rest: {
      method: 'POST',
      path: M,
      input: (r) => r.body,
      status: 201,
      message: 'Manager created successfully',
      doc: {
        summary: 'Create a manager, optionally linked to a user (ADMIN)',
        tags: TAGS,
        body: ManagerInput,
        data: Manager,
        errors: [404, 409, 422],
      },
    },
    graphql: {
      name: 'createManager',
      args: { input: 'ManagerInput!' },
      returns: 'Manager!',
      // userId: null means "not linked", as absent does; the zod contract takes either.
      input: (args) => args.input,
    },
  }),
  declareCommand({
    name: 'UpdateManager',
    permission: 'managers.write',
    scope: `${ANY_MANAGER}; a newly linked user active and not linked to another manager`,
    run: (app, actor, { id, body }: WithId) => updateManager(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${M}/:id`,
      input: byId,
      message: 'Manager updated successfully',
      doc: {
        summary: 'Update a manager; without userId it is unlinked (ADMIN)',
        tags: TAGS,
        params: ManagerIdParams,
        body: ManagerInput,
        data: Manager,
        errors: [404, 409, 422],
      },
    },
    graphql: {
      name: 'updateManager',
      args: { id: 'Int!', input: 'ManagerInput!' },
      returns: 'Manager!',
      input: (args) => ({ id: args.id, body: args.input }),
      description: 'Replaces the manager’s details; without userId the manager is unlinked.',
    },
  }),
  declareCommand({
    name: 'DeleteManager',
    permission: 'managers.write',
    scope: ANY_MANAGER,
    run: (app, actor, id: unknown) => deleteManager(app, actor, id).then(() => null),
    rest: {
      method: 'DELETE',
      path: `${M}/:id`,
      input: (r) => r.params.id,
      message: 'Manager deleted successfully',
      doc: {
        summary: 'Delete a manager (its history stays; ADMIN)',
        tags: TAGS,
        params: ManagerIdParams,
        data: z.null(),
        errors: [404, 422],
      },
    },
    graphql: {
      name: 'deleteManager',
      args: { id: 'Int!' },
      returns: 'Boolean!',
      input: (args) => args.id,
      answer: () => true,
    },
  }),
  declareCommand({
    name: 'LinkManagerUser',
    permission: 'managers.write',
    scope: `${ANY_MANAGER}; the user active and not linked to another manager`,
    run: (app, actor, { id, body }: WithId) => linkManagerUser(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${M}/:id/link-user`,
      input: byId,
      message: 'User linked successfully',
      doc: {
        summary: 'Link an active user to a manager (one manager per user; ADMIN)',
        tags: TAGS,
        params: ManagerIdParams,
        body: LinkUserInput,
        data: Manager,
        errors: [404, 409, 422],
      },
    },
    graphql: {
      name: 'linkManagerUser',
      args: { id: 'Int!', userId: 'Int!' },
      returns: 'Manager!',
      input: (args) => ({ id: args.id, body: { userId: args.userId } }),
    },
  }),
  declareCommand({
    name: 'UnlinkManagerUser',
    permission: 'managers.write',
    scope: ANY_MANAGER,
    run: (app, actor, id: unknown) => unlinkManagerUser(app, actor, id),
    rest: {
      method: 'PUT',
      path: `${M}/:id/unlink-user`,
      input: (r) => r.params.id,
      message: 'User unlinked successfully',
      doc: {
        summary: "Unlink a manager's user (ADMIN)",
        tags: TAGS,
        params: ManagerIdParams,
        data: Manager,
        errors: [404, 422],
      },
    },
    graphql: {
      name: 'unlinkManagerUser',
      args: { id: 'Int!' },
      returns: 'Manager!',
      input: (args) => args.id,
    },
  }),
];

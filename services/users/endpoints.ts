// The users' commands, each declared once (services/app/endpoints.ts): an ADMIN's (register, update,
// role, deactivate, reactivate, delete, forget, set a password) and a user's own (profile, password).
// The gateway makes each one's REST route, GraphQL mutation and OpenAPI entry. Sign-in, refresh and
// sign-out are in session-endpoints.ts.
import { z } from 'zod';
import { User } from '../../schema/users/answers.js';
import {
  AdminChangePasswordInput,
  ChangeOwnPasswordInput,
  ChangeRoleInput,
  RegisterUserInput,
  UpdateUserInput,
} from '../../schema/users/commands.js';
import {
  byId,
  declareCommand,
  type GraphQLInputDeclaration,
  type WithId,
  withoutNulls,
} from '../app/endpoints.js';
import { changeOwnPassword, registerUser } from './auth.js';
import {
  adminChangePassword,
  changeRole,
  deactivateUser,
  deleteUser,
  forgetUser,
  reactivateUser,
  updateProfile,
  updateUser,
} from './users.js';

const U = '/api/user/users';
const TAGS = ['users'];
const IdParams = z.object({ id: z.string().regex(/^\d+$/).describe('User id') });
/** Users are ADMIN's to manage, every one of them; the ADMIN roster keeps one active ADMIN. */
const ANY_USER = 'any live user';
const NOT_SELF_NOR_LAST_ADMIN = 'not the caller, nor the last active ADMIN';
const OWN = 'the caller’s own account only';

// What updateProfile accepts (services/users/users.ts): names and e-mail (a new one needs the
// current password), nothing else. Keep in step with that function's pick.
const UpdateProfileInput = UpdateUserInput.pick({
  email: true,
  firstName: true,
  lastName: true,
  currentPassword: true,
}).strict();

export const userInputs: GraphQLInputDeclaration[] = [
  {
    name: 'RegisterUserInput',
    fields: {
      email: 'String!',
      password: 'String!',
      firstName: 'String',
      lastName: 'String',
      role: 'Role',
      isActive: 'Boolean',
    },
  },
  {
    name: 'UpdateUserInput',
    fields: {
      email: 'String',
      firstName: 'String',
      lastName: 'String',
      role: 'Role',
      isActive: 'Boolean',
      currentPassword: {
        type: 'String',
        description:
          'Needed when the change is to one’s own e-mail address (as on PUT /api/user/users/{id}).',
      },
    },
  },
];

export const userEndpoints = [
  declareCommand({
    name: 'RegisterUser',
    permission: 'auth.register',
    scope: 'any new user; the e-mail address not held by another user',
    run: (app, actor, body: unknown) => registerUser(app, actor, body),
    rest: {
      method: 'POST',
      path: '/api/auth/register',
      input: (r) => r.body,
      status: 201,
      message: 'User created successfully',
      doc: {
        summary: 'Create a user (ADMIN)',
        tags: ['auth'],
        body: RegisterUserInput,
        data: User,
        errors: [409, 422],
      },
    },
    graphql: {
      name: 'register',
      args: { input: 'RegisterUserInput!' },
      returns: 'User!',
      input: (args) => withoutNulls(args.input as object),
      description: 'Creates a user (ADMIN only).',
    },
  }),
  declareCommand({
    name: 'UpdateUser',
    permission: 'users.write',
    scope: `${ANY_USER}; one’s own new e-mail address needs the current password; the last active ADMIN stays one`,
    run: (app, actor, { id, body }: WithId) => updateUser(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${U}/:id`,
      input: byId,
      message: 'User updated successfully',
      doc: {
        summary: 'Update a user (ADMIN)',
        tags: TAGS,
        params: IdParams,
        body: UpdateUserInput,
        data: User,
        errors: [404, 409, 422],
      },
    },
    graphql: {
      name: 'updateUser',
      args: { id: 'Int!', input: 'UpdateUserInput!' },
      returns: 'User!',
      // firstName/lastName may be set to null on purpose (clearing them): keep explicit nulls there.
      // The password is checked by the same use case and zod input as REST; an explicit null is none.
      input: (args) => {
        const input = args.input as { currentPassword?: string | null };
        return { id: args.id, body: { ...input, currentPassword: input.currentPassword ?? undefined } };
      },
    },
  }),
  declareCommand({
    name: 'DeleteUser',
    permission: 'users.write',
    scope: `${ANY_USER}, ${NOT_SELF_NOR_LAST_ADMIN}`,
    run: (app, actor, id: unknown) => deleteUser(app, actor, id).then(() => null),
    rest: {
      method: 'DELETE',
      path: `${U}/:id`,
      input: (r) => r.params.id,
      message: 'User deleted successfully',
      doc: {
        summary: 'Delete a user (ADMIN)',
        tags: TAGS,
        params: IdParams,
        data: z.null(),
        errors: [404, 409, 422],
      },
    },
    graphql: {
      name: 'deleteUser',
      args: { id: 'Int!' },
      returns: 'Boolean!',
      input: (args) => args.id,
      answer: () => true,
    },
  }),
  // Erasing a deleted user's personal data (docs/OPERATIONS.md).
  declareCommand({
    name: 'ForgetUser',
    permission: 'users.write',
    scope: 'a deleted user',
    run: (app, actor, id: unknown) => forgetUser(app, actor, id).then(() => null),
    rest: {
      method: 'POST',
      path: `${U}/:id/forget`,
      input: (r) => r.params.id,
      message: 'Personal data erased',
      doc: {
        summary: "Erase a deleted user's personal data (ADMIN)",
        tags: TAGS,
        params: IdParams,
        data: z.null(),
        errors: [404, 409, 422],
      },
    },
    graphql: {
      name: 'forgetUser',
      args: { id: 'Int!' },
      returns: 'Boolean!',
      input: (args) => args.id,
      answer: () => true,
      description:
        'An ADMIN erases a deleted user’s personal data for good: their data key goes, and every read model drops their names and e-mail.',
    },
  }),
  declareCommand({
    name: 'ReactivateUser',
    permission: 'users.write',
    scope: ANY_USER,
    run: (app, actor, id: unknown) => reactivateUser(app, actor, id),
    rest: {
      method: 'PUT',
      path: `${U}/:id/reactivate`,
      input: (r) => r.params.id,
      message: 'User activated successfully',
      doc: {
        summary: 'Reactivate a user (ADMIN)',
        tags: TAGS,
        params: IdParams,
        data: User,
        errors: [404, 409, 422],
      },
    },
    graphql: {
      name: 'reactivateUser',
      args: { id: 'Int!' },
      returns: 'User!',
      input: (args) => args.id,
    },
  }),
  declareCommand({
    name: 'DeactivateUser',
    permission: 'users.write',
    scope: `${ANY_USER}, ${NOT_SELF_NOR_LAST_ADMIN}`,
    run: (app, actor, id: unknown) => deactivateUser(app, actor, id),
    rest: {
      method: 'PUT',
      path: `${U}/:id/deactivate`,
      input: (r) => r.params.id,
      message: 'User deactivated successfully',
      doc: {
        summary: 'Deactivate a user (ADMIN)',
        tags: TAGS,
        params: IdParams,
        data: User,
        errors: [404, 409, 422],
      },
    },
    graphql: {
      name: 'deactivateUser',
      args: { id: 'Int!' },
      returns: 'User!',
      input: (args) => args.id,
    },
  }),
  declareCommand({
    name: 'ChangeUserRole',
    permission: 'users.write',
    scope: `${ANY_USER}; not an ADMIN caller’s own role, nor the last active ADMIN’s`,
    run: (app, actor, { id, body }: WithId) => changeRole(app, actor, id, body),
    rest: {
      method: 'PUT',
      path: `${U}/:id/role`,
      input: byId,
      message: 'Role updated successfully',
      doc: {
        summary: "Change a user's role (ADMIN)",
        tags: TAGS,
        params: IdParams,
        body: ChangeRoleInput,
        data: User,
        errors: [404, 409, 422],
      },
    },
    graphql: {
      name: 'changeUserRole',
      args: { id: 'Int!', role: 'Role!' },
      returns: 'User!',
      input: (args) => ({ id: args.id, body: { role: args.role } }),
    },
  }),
  declareCommand({
    name: 'SetUserPassword',
    permission: 'users.write',
    scope: `${ANY_USER} but the caller (their own goes through ChangeOwnPassword)`,
    run: (app, actor, { id, body }: WithId) => adminChangePassword(app, actor, id, body).then(() => null),
    rest: {
      method: 'PUT',
      path: `${U}/:id/change-password`,
      input: byId,
      message: 'Password changed successfully',
      doc: {
        summary: "Set another user's password (ADMIN)",
        tags: TAGS,
        params: IdParams,
        body: AdminChangePasswordInput,
        data: z.null(),
        errors: [404, 422],
      },
    },
    graphql: {
      name: 'setUserPassword',
      args: { id: 'Int!', newPassword: 'String!' },
      returns: 'Boolean!',
      input: (args) => ({ id: args.id, body: { newPassword: args.newPassword } }),
      answer: () => true,
      description: 'An ADMIN sets another user’s password (6+ characters); their sessions end.',
    },
  }),
  declareCommand({
    name: 'UpdateProfile',
    permission: 'profile.write',
    scope: `${OWN}; a new e-mail address needs the current password`,
    run: (app, actor, body: unknown) => updateProfile(app, actor, body),
    rest: {
      method: 'PUT',
      path: '/api/user/profile',
      input: (r) => r.body,
      message: 'Profile updated successfully',
      doc: {
        summary: 'Update own names and e-mail',
        tags: ['profile'],
        body: UpdateProfileInput,
        data: User,
        errors: [409, 422],
      },
    },
    graphql: {
      name: 'updateProfile',
      args: { email: 'String', firstName: 'String', lastName: 'String' },
      returns: 'User!',
      input: (args) => ({ ...args, email: args.email ?? undefined }),
    },
  }),
  declareCommand({
    name: 'ChangeOwnPassword',
    permission: 'password.changeOwn',
    scope: `${OWN}, with its current password; the caller’s other sessions end`,
    run: (app, actor, body: unknown) => changeOwnPassword(app, actor, body).then(() => null),
    rest: {
      method: 'PUT',
      path: '/api/user/password',
      input: (r) => r.body,
      message: 'Password changed successfully',
      doc: {
        summary: 'Change own password (needs the current one)',
        tags: ['profile'],
        body: ChangeOwnPasswordInput,
        data: z.null(),
        errors: [422, 429],
      },
    },
    graphql: {
      name: 'changePassword',
      args: { currentPassword: 'String!', newPassword: 'String!' },
      returns: 'Boolean!',
      input: (args) => args,
      answer: () => true,
      description: 'Changes the signed-in user’s own password.',
    },
  }),
];

// The Users reads and writes, as GraphQL documents; the answer types come from them.
// Writes re-read the lists, stats and details through the cache (lib/cache-rules.ts).
import { useCallback } from 'react';
import { graphql, type ResultOf } from '../../../lib/graphql';
import { useGqlMutation } from '../../../lib/use-graphql';

export const UserFields = graphql(`
  fragment UserFields on User @_unmask {
    id
    email
    firstName
    lastName
    role
    isActive
    createdAt
    updatedAt
  }
`);

export type User = ResultOf<typeof UserFields>;
export type Role = User['role'];

export const UsersQuery = graphql(
  `
    query Users($page: Int, $limit: Int) {
      users(page: $page, limit: $limit) {
        data {
          ...UserFields
        }
        total
        page
        limit
        totalPages
      }
    }
  `,
  [UserFields],
);

export const UserQuery = graphql(
  `
    query User($id: Int!) {
      user(id: $id) {
        ...UserFields
      }
    }
  `,
  [UserFields],
);

export const UserOverviewStatsQuery = graphql(`
  query UserOverviewStats {
    userOverviewStats {
      totalUsers
      activeUsers
      newUsersThisMonth
      usersByRole {
        ADMIN
        MODERATOR
        USER
        GUEST
      }
    }
  }
`);

export type OverviewStats = ResultOf<typeof UserOverviewStatsQuery>['userOverviewStats'];

export const UserStatisticsQuery = graphql(`
  query UserStatistics($userId: Int) {
    userStatistics(userId: $userId) {
      totalLogins
      lastLogin
      companiesManaged
      approvalsCreated
    }
  }
`);

export type UserStatistics = ResultOf<typeof UserStatisticsQuery>['userStatistics'];

export const RegisterUser = graphql(`
  mutation RegisterUser($input: RegisterUserInput!) {
    register(input: $input) {
      id
    }
  }
`);

export const UpdateUser = graphql(
  `
    mutation UpdateUser($id: Int!, $input: UpdateUserInput!) {
      updateUser(id: $id, input: $input) {
        ...UserFields
      }
    }
  `,
  [UserFields],
);

export const ChangeUserRole = graphql(
  `
    mutation ChangeUserRole($id: Int!, $role: Role!) {
      changeUserRole(id: $id, role: $role) {
        ...UserFields
      }
    }
  `,
  [UserFields],
);

export const DeactivateUser = graphql(
  `
    mutation DeactivateUser($id: Int!) {
      deactivateUser(id: $id) {
        ...UserFields
      }
    }
  `,
  [UserFields],
);

export const ReactivateUser = graphql(
  `
    mutation ReactivateUser($id: Int!) {
      reactivateUser(id: $id) {
        ...UserFields
      }
    }
  `,
  [UserFields],
);

export const DeleteUser = graphql(`
  mutation DeleteUser($id: Int!) {
    deleteUser(id: $id)
  }
`);

/** An ADMIN sets another user's password (6+ characters). */
export const SetUserPassword = graphql(`
  mutation SetUserPassword($id: Int!, $newPassword: String!) {
    setUserPassword(id: $id, newPassword: $newPassword)
  }
`);

/** One's own password, with the current one. */
export const ChangeOwnPassword = graphql(`
  mutation ChangeOwnPassword($currentPassword: String!, $newPassword: String!) {
    changePassword(currentPassword: $currentPassword, newPassword: $newPassword)
  }
`);

/** The texts the REST answers carried (services/users/endpoints.ts, services/users/api/rest/auth-routes.ts). */
export const USER_MESSAGES = {
  created: 'User created successfully',
  updated: 'User updated successfully',
  deleted: 'User deleted successfully',
  activated: 'User activated successfully',
  deactivated: 'User deactivated successfully',
  roleUpdated: 'Role updated successfully',
  passwordChanged: 'Password changed successfully',
} as const;

/** Activate or deactivate a user; resolves with the REST answer's text. */
export function useSetUserActive() {
  const deactivate = useGqlMutation(DeactivateUser, 'Failed to deactivate user');
  const reactivate = useGqlMutation(ReactivateUser, 'Failed to activate user');
  return useCallback(
    async (id: number, active: boolean) => {
      if (active) await reactivate({ id });
      else await deactivate({ id });
      return active ? USER_MESSAGES.activated : USER_MESSAGES.deactivated;
    },
    [deactivate, reactivate],
  );
}

// The Managers reads and writes, as GraphQL documents; the answer types come from them.
// Writes re-read the lists and details through the cache (lib/cache-rules.ts).
import { graphql, type ResultOf } from '../../../lib/graphql';

export const ManagerFields = graphql(`
  fragment ManagerFields on Manager @_unmask {
    id
    firstName
    lastName
    email
    phone
    title
    status
    isActive
    userId
    user {
      id
      firstName
      lastName
      email
      role
    }
    createdAt
    updatedAt
  }
`);

export type Manager = ResultOf<typeof ManagerFields>;

/** A page of managers, 10 a page (MANAGERS_PAGE_SIZE). */
export const ManagersQuery = graphql(
  `
    query Managers($page: Int, $limit: Int) {
      managers(page: $page, limit: $limit) {
        data {
          ...ManagerFields
        }
        total
        page
        limit
        totalPages
      }
    }
  `,
  [ManagerFields],
);

export const ManagerQuery = graphql(
  `
    query Manager($id: Int!) {
      manager(id: $id) {
        ...ManagerFields
      }
    }
  `,
  [ManagerFields],
);

/** The user picker's choices: the first 100 users. */
export const UserChoicesQuery = graphql(`
  query ManagerUserChoices($limit: Int) {
    users(page: 1, limit: $limit) {
      data {
        id
        email
        firstName
        lastName
      }
    }
  }
`);

export type UserChoice = ResultOf<typeof UserChoicesQuery>['users']['data'][number];

export const CreateManager = graphql(`
  mutation CreateManager($input: ManagerInput!) {
    createManager(input: $input) {
      id
    }
  }
`);

/** Replaces the details; without userId the manager is unlinked. */
export const UpdateManager = graphql(`
  mutation UpdateManager($id: Int!, $input: ManagerInput!) {
    updateManager(id: $id, input: $input) {
      id
    }
  }
`);

export const DeleteManager = graphql(`
  mutation DeleteManager($id: Int!) {
    deleteManager(id: $id)
  }
`);

export const UnlinkManagerUser = graphql(`
  mutation UnlinkManagerUser($id: Int!) {
    unlinkManagerUser(id: $id) {
      id
    }
  }
`);

/** The texts the REST answers carried (services/managers/endpoints.ts). */
export const MANAGER_MESSAGES = {
  created: 'Manager created successfully',
  updated: 'Manager updated successfully',
  deleted: 'Manager deleted successfully',
  unlinked: 'User unlinked successfully',
} as const;

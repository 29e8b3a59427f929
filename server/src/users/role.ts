/**
 * Roles, checked live on each action from the user's current record and grants, independent of
 * what a token claims (spec 5.4). Every user is a contributor; author and trusted author come
 * from capability grants; administrator from the user's `is_admin`.
 */
export const Role = {
  /** Save, validate and test private proposals; upload and validate. */
  contributor: "contributor",
  author: "author",
  /** May list their own work. */
  trusted_author: "trusted_author",
  /** Publishes on behalf of owners and manages access. */
  administrator: "administrator",
} as const;
export type Role = (typeof Role)[keyof typeof Role];

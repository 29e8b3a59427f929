/** Closed sets of users, tokens and organizations (spec section 5). */

/** What a token may be used for (spec 5.2). `contribute` implies `read`. */
export const Scope = {
  /** Every read tool and resource. */
  read: "read",
  /** Doing work and reviewing as the connected user. */
  contribute: "contribute",
} as const;
export type Scope = (typeof Scope)[keyof typeof Scope];

/**
 * Beta capabilities an operator grants to allowlisted users (spec 5.3), recorded with grantor
 * and time. A token carries those its user held when it was issued; actions still check the
 * user's live grants.
 */
export const Capability = {
  /** Materialize private packages, open participation, archive. */
  author: "author",
  /** Name public digest-pinned images as sandbox checkers. */
  custom_verifier: "custom_verifier",
  /** An author who may list their own work (spec 5.4); implies author. */
  trusted_author: "trusted_author",
} as const;
export type Capability = (typeof Capability)[keyof typeof Capability];

/**
 * Roles, checked live on each action (spec 5.4), lowest first. Every user is a contributor;
 * author and trusted author come from capability grants; administrator from `is_admin`.
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

/** A user's role in an Organization. */
export const MembershipRole = { owner: "owner", member: "member" } as const;
export type MembershipRole = (typeof MembershipRole)[keyof typeof MembershipRole];

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
} as const;
export type Capability = (typeof Capability)[keyof typeof Capability];

/**
 * Roles, checked live on each action (spec 5.4), lowest first. Every user is a contributor;
 * author comes from the author capability; trusted author and administrator from role grants
 * (GrantedRole). A trusted author is also an author.
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

/**
 * The roles recorded as grants (spec 5.4), with grantor and time like capabilities: trusted
 * author (set by set_author_access or an operator) and administrator (an operator's).
 */
export const GrantedRole = {
  trusted_author: "trusted_author",
  administrator: "administrator",
} as const;
export type GrantedRole = (typeof GrantedRole)[keyof typeof GrantedRole];

/**
 * The author access set_author_access gives a user: `none` revokes both, `author` grants the
 * author capability (and revokes trusted author), `trusted_author` grants both.
 */
export const AuthorAccess = {
  none: "none",
  author: "author",
  trusted_author: "trusted_author",
} as const;
export type AuthorAccess = (typeof AuthorAccess)[keyof typeof AuthorAccess];

/**
 * What an operator grants or revokes with `svc-server user grant|revoke`: a capability or a
 * granted role (a type only: the two sets above are its members).
 */
export type Access = Capability | GrantedRole;

/** A user's role in an Organization: owners invite, remove and keep the Organization; members belong. */
export const MembershipRole = { owner: "owner", member: "member" } as const;
export type MembershipRole = (typeof MembershipRole)[keyof typeof MembershipRole];

/**
 * Whether a GitHub user unknown to the service may join by signing in (`SVC_SIGNUP`): `open`
 * makes them a contributor; `invite` needs an operator's invitation (`svc-server user add
 * <handle> --github <login>`) first.
 */
export const SignupMode = {
  open: "open",
  invite: "invite",
} as const;
export type SignupMode = (typeof SignupMode)[keyof typeof SignupMode];

import { MembershipRole } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";

/**
 * Glossary. An *Organization* is a team (spec 2.1): Attempts may be attributed to it, review
 * eligibility may name its members, and conflicts may exclude them. A *membership* is a user's
 * current place in it with a role: `owner` (invites, removes, keeps it) or `member`. An
 * *invitation* is an owner's offer of a role, which the invitee accepts or declines; it is kept
 * after it is resolved. See docs/organizations.md.
 */
export interface Organization {
  id: string;
  slug: string;
  name: string;
  created_by: string | null;
  created_at: Date;
}

/** One current member as organization reads show them. */
export interface Member {
  user_id: string;
  handle: string;
  role: MembershipRole;
  joined_at: Date;
}

/** The rules `organizations.slug` and `organizations.name` enforce, for messages that say how to fix. */
export const ORGANIZATION_SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const ORGANIZATION_SLUG_MAX_LENGTH = 64;
export const ORGANIZATION_NAME_MAX_LENGTH = 200;

/** Ceilings that keep one user from filling the tables: Organizations a user created, open invitations of one Organization. */
export const ORGANIZATIONS_PER_CREATOR_MAX = 100;
export const OPEN_INVITATIONS_MAX = 200;

const COLUMNS = "id, slug, name, created_by, created_at";

/**
 * The Organization named by a slug or an `org_` id, locked for the transaction when `lock` is
 * set (membership changes lock it so that the last-owner rule holds under concurrency).
 * not_found naming `field` when there is none.
 */
export async function findOrganization(
  sql: Sql,
  slugOrId: string,
  { field = "organization", lock = false }: { field?: string; lock?: boolean } = {},
): Promise<Organization> {
  const byId = slugOrId.startsWith("org_");
  const [row] = await sql<Organization[]>`
    select ${sql.unsafe(COLUMNS)} from organizations
    where ${byId ? sql`id` : sql`slug`} = ${slugOrId}
    ${lock ? sql`for update` : sql``}`;
  if (!row) {
    throw new ServiceError("not_found", `no organization has the ${byId ? "id" : "slug"} "${slugOrId}"`, {
      field,
    });
  }
  return row;
}

/** The user's current role in an Organization, or null when they are not a member. */
export async function membershipRole(
  sql: Sql,
  organizationId: string,
  userId: string,
): Promise<MembershipRole | null> {
  const [row] = await sql<{ role: MembershipRole }[]>`
    select role from memberships where organization_id = ${organizationId} and user_id = ${userId}`;
  return row?.role ?? null;
}

/** Throws not_a_member unless the user is a member (an owner when `owner` is set); returns the role. */
export async function requireMembership(
  sql: Sql,
  organization: Organization,
  userId: string,
  { owner = false, field = "organization" }: { owner?: boolean; field?: string } = {},
): Promise<MembershipRole> {
  const role = await membershipRole(sql, organization.id, userId);
  if (role === null) {
    throw new ServiceError(
      "not_a_member",
      `you are not a member of the organization "${organization.slug}"`,
      {
        field,
        organization_slug: organization.slug,
      },
    );
  }
  if (owner && role !== MembershipRole.owner) {
    throw new ServiceError(
      "not_a_member",
      `only owners of "${organization.slug}" do this, and you are a ${role}: ask an owner`,
      { field, organization_slug: organization.slug, role },
    );
  }
  return role;
}

/** The number of owners of an Organization now. */
export async function ownerCount(sql: Sql, organizationId: string): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from memberships where organization_id = ${organizationId} and role = ${MembershipRole.owner}`;
  return row!.count;
}

/** The refusal when an action would leave an Organization without an owner. */
export function lastOwner(organization: Organization): ServiceError {
  return new ServiceError(
    "last_owner",
    `you are the only owner of "${organization.slug}": invite another member as owner (invite_organization_member with role owner) and let them accept first`,
    { organization_slug: organization.slug },
  );
}

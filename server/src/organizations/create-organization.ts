import { IdPrefix, MembershipRole } from "@svc/schemas";
import { inTransaction } from "../core/db/in-transaction.ts";
import { isUniqueViolation } from "../core/db/is-unique-violation.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { randomId } from "../core/ids/random-id.ts";
import type { Services } from "../core/services/services.ts";
import type { Caller } from "../users/caller.ts";
import {
  ORGANIZATION_NAME_MAX_LENGTH,
  ORGANIZATION_SLUG_MAX_LENGTH,
  ORGANIZATION_SLUG_PATTERN,
  ORGANIZATIONS_PER_CREATOR_MAX,
} from "./organization.ts";
import { type OrganizationView, readOrganization } from "./read-organization.ts";

export interface CreateOrganizationInput {
  slug: string;
  name: string;
}

/**
 * create_organization: any user creates an Organization and becomes its first owner, joined now.
 * invalid_input for a bad slug or name, conflict for a taken slug.
 */
export async function createOrganization(
  services: Services,
  caller: Caller,
  input: CreateOrganizationInput,
): Promise<OrganizationView> {
  const { slug } = input;
  const name = input.name.trim();
  if (!ORGANIZATION_SLUG_PATTERN.test(slug) || slug.length > ORGANIZATION_SLUG_MAX_LENGTH) {
    throw new ServiceError(
      "invalid_input",
      `slug "${slug}" is not valid: use lowercase letters and digits, groups joined by single hyphens, at most ${ORGANIZATION_SLUG_MAX_LENGTH} characters`,
      { field: "slug" },
    );
  }
  if (name.length === 0 || name.length > ORGANIZATION_NAME_MAX_LENGTH) {
    throw new ServiceError(
      "invalid_input",
      `name must have 1 to ${ORGANIZATION_NAME_MAX_LENGTH} characters besides surrounding spaces`,
      { field: "name" },
    );
  }
  const userId = caller.principal.user.id;
  const id = randomId(IdPrefix.organization);
  try {
    await inTransaction(services.sql, async (tx) => {
      // The creator's row is locked so that concurrent creations count each other.
      await tx`select 1 from users where id = ${userId} for update`;
      const [created] = await tx<{ n: number }[]>`
        select count(*)::int as n from organizations where created_by = ${userId}`;
      if (created!.n >= ORGANIZATIONS_PER_CREATOR_MAX) {
        throw new ServiceError(
          "conflict",
          `you have created ${ORGANIZATIONS_PER_CREATOR_MAX} organizations, the most one user may create`,
          { field: "slug", limit: ORGANIZATIONS_PER_CREATOR_MAX },
        );
      }
      await tx`insert into organizations (id, slug, name, created_by) values (${id}, ${slug}, ${name}, ${userId})`;
      await tx`insert into memberships (organization_id, user_id, role) values (${id}, ${userId}, ${MembershipRole.owner})`;
    });
  } catch (error) {
    if (isUniqueViolation(error, "organizations_slug_key")) {
      throw new ServiceError("conflict", `the organization slug "${slug}" is taken: choose another one`, {
        field: "slug",
      });
    }
    throw error;
  }
  return readOrganization(services.sql, id, userId);
}

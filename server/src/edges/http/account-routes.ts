import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Services } from "../../core/services/services.ts";
import { getOrganization } from "../../organizations/read-organization.ts";
import { whoami } from "../../users/whoami.ts";
import { organizationField } from "../inputs/organization-fields.ts";
import { jsonResponse, readErrors } from "./api-responses.ts";
import { readCaller } from "./read-caller.ts";

/** whoami's result (server/src/users/whoami.ts); dates are RFC 3339 strings. */
const whoamiResult = z.looseObject({
  user: z.looseObject({ id: z.string(), handle: z.string(), created_at: z.string() }),
  memberships: z.array(
    z.looseObject({ organization_slug: z.string(), role: z.string(), joined_at: z.string() }),
  ),
  invitations: z.array(z.looseObject({ organization_slug: z.string(), role: z.string() })),
  work_role: z.string(),
  roles: z.array(z.string()),
  scopes: z.array(z.string()),
  capabilities: z.array(z.string()),
  grants: z.array(z.looseObject({ access: z.string(), granted_at: z.string() })),
});

/** get_organization's result (server/src/organizations/read-organization.ts). */
const organizationView = z.looseObject({
  organization: z.looseObject({ id: z.string(), slug: z.string(), name: z.string() }),
  your_role: z.string().nullable(),
  members: z.array(
    z.looseObject({ user_id: z.string(), handle: z.string(), role: z.string(), joined_at: z.string() }),
  ),
  invitations: z.array(z.looseObject({ handle: z.string(), role: z.string() })),
});

/** A domain result as JSON carries it: Dates become RFC 3339 strings, as in MCP envelopes. */
function asJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}

/**
 * The account reads under `/api/` with the read scope, thin adapters over the same functions as
 * the MCP tools: `GET /api/whoami` (whoami) and `GET /api/organizations/{organization}`
 * (get_organization). Writes (set_author_access, the organization tools) are MCP tools.
 */
export const accountRoutes: FastifyPluginAsync<{ services: Services }> = async (plain, { services }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const caller = readCaller(services);

  app.get(
    "/api/whoami",
    {
      onRequest: caller.onRequest,
      schema: {
        operationId: "whoami",
        tags: ["account"],
        summary: "Who am I (whoami)",
        description:
          "The connected user, their memberships and open invitations, live roles, the token's scopes and the " +
          "capabilities it carries that the user still holds, and every grant with grantor and time.",
        querystring: z.strictObject({}),
        response: { 200: jsonResponse("The whoami report.", whoamiResult), ...readErrors },
      },
    },
    async (request) => asJson(await whoami(services.sql, caller.of(request).principal)),
  );

  app.get(
    "/api/organizations/:organization",
    {
      onRequest: caller.onRequest,
      schema: {
        operationId: "getOrganization",
        tags: ["account"],
        summary: "Get an organization (get_organization)",
        description:
          "An Organization you belong to or are invited to, with its members and, for owners, open invitations.",
        params: z.strictObject({ organization: organizationField }),
        querystring: z.strictObject({}),
        response: { 200: jsonResponse("The Organization view.", organizationView), ...readErrors },
      },
    },
    async (request) => {
      const context = caller.of(request);
      return asJson(
        await getOrganization(context.services, context, { organization: request.params.organization }),
      );
    },
  );
};

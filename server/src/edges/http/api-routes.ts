import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { getProblem } from "../../discovery/get-problem.ts";
import { searchProblems } from "../../problems/search-problems.ts";
import { resolveReference } from "../../sealing/resolve-reference.ts";
import { requireScope } from "../../users/require-scope.ts";
import { viewerOf } from "../../visibility/viewer.ts";
import { searchProblemsInput } from "../inputs/discovery-inputs.ts";
import { publicBaseUrl, type RouteContext, requirePrincipal } from "./request-principal.ts";
import { sendBlob } from "./send-blob.ts";

/** `GET /api/problems` query parameters and the search_problems field each one fills. */
const SEARCH_PARAMETERS: Readonly<Record<string, string>> = {
  q: "query",
  campaign: "campaign",
  standalone: "standalone",
  structure: "structure",
  status: "status",
  order: "order",
  limit: "limit",
  cursor: "cursor",
};

/**
 * The read routes under `/api/` (spec 4.1 HTTP routes), each a thin adapter over the same
 * functions the MCP tools call, behind a bearer token with the read scope:
 *
 * - `GET /api/problems`: search_problems, `{problems, cursor, order}`;
 * - `GET /api/problems/{id-or-slug}[?revision=n]`: the get_problem envelope;
 * - `GET /api/problem-revisions/{prv}/reference/{key}`: the bytes of a reference input with
 *   `x-svc-content-hash`, a 302 to a linked input's url, sealed inputs for managers only.
 */
export const apiRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const caller = async (request: FastifyRequest): Promise<RouteContext> => {
    const principal = await requirePrincipal(services, request);
    requireScope(principal, "read");
    return { services, principal, baseUrl: publicBaseUrl(services, request) };
  };

  app.get("/api/problems", async (request) => {
    const context = await caller(request);
    const input = searchInputFromQuery(request.query as Record<string, string | string[]>);
    const viewer = viewerOf(context.principal);
    try {
      const { problems, cursor, order } = await searchProblems(services.sql, viewer, input);
      return { problems, cursor, order };
    } catch (error) {
      throw withParameter(error);
    }
  });

  app.get<{ Params: { problem: string }; Querystring: Record<string, string | string[]> }>(
    "/api/problems/:problem",
    async (request) => {
      const context = await caller(request);
      const revision = optionalPositiveInteger(request.query, "revision");
      const viewer = viewerOf(context.principal);
      return getProblem(context.services, context, viewer, { problem: request.params.problem, revision });
    },
  );

  app.get<{ Params: { revision: string; key: string } }>(
    "/api/problem-revisions/:revision/reference/:key",
    async (request, reply: FastifyReply) => {
      const context = await caller(request);
      const viewer = viewerOf(context.principal);
      const { binding } = await resolveReference(
        services.sql,
        viewer,
        request.params.revision,
        request.params.key,
        services.clock(),
      );
      reply.header("x-svc-content-hash", binding.content_hash);
      // A linked input: the service holds no bytes; the hash is the author's statement.
      if (binding.url !== undefined) return reply.redirect(binding.url, 302);
      return sendBlob(services, reply, binding.content_hash, binding.media_type, binding.filename);
    },
  );
};

/**
 * The search input from query parameters: `q` is the query, `limit` an integer, `standalone`
 * `true` or `false`. An unknown, repeated or invalid parameter is invalid_input naming it.
 */
function searchInputFromQuery(query: Record<string, string | string[]>) {
  const fields: Record<string, unknown> = {};
  for (const [parameter, value] of Object.entries(query)) {
    const field = SEARCH_PARAMETERS[parameter];
    if (field === undefined) {
      throw new ServiceError(
        "invalid_input",
        `unknown query parameter "${parameter}": use ${Object.keys(SEARCH_PARAMETERS).join(", ")}`,
        { field: parameter, parameter },
      );
    }
    if (Array.isArray(value)) throw invalidParameter(parameter, "is given more than once: give it once");
    if (parameter === "limit") {
      if (!/^[0-9]{1,6}$/.test(value)) throw invalidParameter(parameter, "must be an integer from 1 to 200");
      fields.limit = Number(value);
    } else if (parameter === "standalone") {
      if (value !== "true" && value !== "false") throw invalidParameter(parameter, "must be true or false");
      fields.standalone = value === "true";
    } else {
      fields[field] = value;
    }
  }
  const parsed = searchProblemsInput.safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = String(issue.path[0] ?? "");
    const parameter = Object.entries(SEARCH_PARAMETERS).find(([, f]) => f === field)?.[0] ?? field;
    throw invalidParameter(parameter, issue.message);
  }
  return parsed.data;
}

/** A positive integer query parameter; any other parameter than it and working_attempt_id is refused. */
function optionalPositiveInteger(
  query: Record<string, string | string[]>,
  parameter: string,
): number | undefined {
  const unknown = Object.keys(query).find((name) => name !== parameter && name !== "working_attempt_id");
  if (unknown !== undefined) {
    throw new ServiceError(
      "invalid_input",
      `unknown query parameter "${unknown}": only ${parameter} is accepted`,
      {
        field: unknown,
        parameter: unknown,
      },
    );
  }
  const value = query[parameter];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^[1-9][0-9]{0,8}$/.test(value)) {
    throw invalidParameter(parameter, "must be a revision number (an integer from 1)");
  }
  return Number(value);
}

/** An invalid_input the search raised about a field, restated with the query parameter's name. */
function withParameter(error: unknown): unknown {
  if (!(error instanceof ServiceError) || error.code !== "invalid_input") return error;
  const field = error.details.field;
  const parameter = Object.entries(SEARCH_PARAMETERS).find(([, f]) => f === field)?.[0];
  if (parameter === undefined) return error;
  return new ServiceError("invalid_input", `query parameter "${parameter}": ${error.message}`, {
    ...error.details,
    field: parameter,
    parameter,
  });
}

function invalidParameter(parameter: string, message: string): ServiceError {
  return new ServiceError("invalid_input", `query parameter "${parameter}" ${message}`, {
    field: parameter,
    parameter,
  });
}

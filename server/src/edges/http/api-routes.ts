import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { getProblem } from "../../discovery/get-problem.ts";
import { getLeaderboard } from "../../leaderboards/get-leaderboard.ts";
import { searchProblems } from "../../problems/search-problems.ts";
import { resolveReference } from "../../sealing/resolve-reference.ts";
import { viewerOf } from "../../visibility/viewer.ts";
import { getProblemInput, readOptions, searchProblemsInput } from "../inputs/discovery-inputs.ts";
import { fromQueryString } from "../inputs/from-query-string.ts";
import { problemRevisionId, referenceKey } from "../inputs/reference-inputs.ts";
import {
  bytesResponse,
  errorResponse,
  jsonResponse,
  leaderboardResult,
  problemEnvelope,
  readErrors,
  searchProblemsResult,
} from "./api-responses.ts";
import { readCaller } from "./read-caller.ts";
import { sendBlob } from "./send-blob.ts";

/** search_problems' input as `GET /api/problems` query parameters: `q` is the query (spec 4.1). */
const { query, ...searchFilters } = searchProblemsInput.shape;
const searchQuery = fromQueryString(z.strictObject({ q: query, ...searchFilters }));

/** get_problem's input: the Problem in the path, the revision as a query parameter. */
const { problem, ...problemOptions } = getProblemInput.shape;

/**
 * The read routes under `/api/` (spec 4.1 HTTP routes), each a thin adapter over the same
 * functions the MCP tools call and declaring its parameters with the same zod inputs, behind a
 * bearer token with the read scope:
 *
 * - `GET /api/problems`: search_problems, `{problems, cursor, order}`;
 * - `GET /api/problems/{id-or-slug}[?revision=n]`: the get_problem envelope;
 * - `GET /api/problem-revisions/{prv}/reference/{key}`: the bytes of a reference input with
 *   `x-svc-content-hash`, a 302 to a linked input's url, sealed inputs for managers only.
 */
export const apiRoutes: FastifyPluginAsync<{ services: Services }> = async (plain, { services }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const caller = readCaller(services);

  app.get(
    "/api/problems",
    {
      onRequest: caller.onRequest,
      schema: {
        operationId: "searchProblems",
        tags: ["problems"],
        summary: "Search problems (search_problems)",
        description:
          "Full-text search over listed Problems and your own; the search_problems tool over HTTP, with `q` " +
          "for its query. Pass `cursor` back with the same filters for the next page.",
        querystring: searchQuery,
        response: { 200: jsonResponse("A page of Problems.", searchProblemsResult), ...readErrors },
      },
    },
    async (request) => {
      const { principal } = caller.of(request);
      const { q, working_attempt_id: _, ...filters } = request.query;
      try {
        return await searchProblems(services.sql, viewerOf(principal), { ...filters, query: q });
      } catch (error) {
        throw withParameter(error);
      }
    },
  );

  app.get(
    "/api/problems/:problem",
    {
      onRequest: caller.onRequest,
      schema: {
        operationId: "getProblem",
        tags: ["problems"],
        summary: "Get a problem (get_problem)",
        description:
          "A Problem by id or slug with one revision (current unless `revision` is given), its skills and " +
          "reference inputs with signed 15-minute download links: the get_problem envelope.",
        params: z.strictObject({ problem }),
        querystring: fromQueryString(z.strictObject(problemOptions)),
        response: { 200: jsonResponse("The get_problem envelope.", problemEnvelope), ...readErrors },
      },
    },
    async (request) => {
      const context = caller.of(request);
      return getProblem(context.services, context, viewerOf(context.principal), {
        ...request.query,
        problem: request.params.problem,
      });
    },
  );

  app.get(
    "/api/problems/:problem/leaderboard",
    {
      onRequest: caller.onRequest,
      schema: {
        operationId: "getLeaderboard",
        tags: ["problems"],
        summary: "Get a leaderboard (get_leaderboard)",
        description:
          "Each participant's best verified, unrevoked score on one revision of a scored Problem (current " +
          "unless `revision` is given), ranked by the score's direction, with the metric and the baseline; " +
          "`withheld` says why a sealed evaluation shows no entry.",
        params: z.strictObject({ problem }),
        querystring: fromQueryString(
          z.strictObject({
            revision: problemOptions.revision,
            working_attempt_id: problemOptions.working_attempt_id,
          }),
        ),
        response: {
          200: jsonResponse("The leaderboard.", leaderboardResult),
          ...readErrors,
          409: errorResponse(
            "leaderboard_not_applicable: the Problem is neither BENCHMARK nor scored by its Contract.",
          ),
        },
      },
    },
    async (request) => {
      const context = caller.of(request);
      return getLeaderboard(
        context.services.sql,
        { viewer: viewerOf(context.principal), now: context.services.clock() },
        { revision: request.query.revision, problem: request.params.problem },
      );
    },
  );

  app.get(
    "/api/problem-revisions/:revision/reference/:key",
    {
      onRequest: caller.onRequest,
      schema: {
        operationId: "getReferenceInput",
        tags: ["problems"],
        summary: "Read a reference input's bytes",
        description:
          "The exact bytes of one bound reference input, with its hash in `x-svc-content-hash`; a linked " +
          "input answers 302 to its url with the stated hash. Sealed inputs: the Problem's managers only.",
        params: z.strictObject({ revision: problemRevisionId, key: referenceKey }),
        querystring: fromQueryString(readOptions),
        response: {
          200: bytesResponse("The input's bytes, in its media type."),
          302: z.null().describe("A linked input: Location is its url, x-svc-content-hash the stated hash."),
          ...readErrors,
          403: errorResponse("forbidden without the read scope; sealed while the input is sealed."),
        },
      },
    },
    async (request, reply) => {
      const viewer = viewerOf(caller.of(request).principal);
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

/** An invalid_input the search raised about a field, restated with the query parameter's name. */
function withParameter(error: unknown): unknown {
  if (!(error instanceof ServiceError) || error.code !== "invalid_input") return error;
  const field = error.details.field;
  const parameter = field === "query" ? "q" : field;
  if (typeof parameter !== "string" || !(parameter in searchQuery.out.shape)) return error;
  return new ServiceError("invalid_input", `query parameter "${parameter}": ${error.message}`, {
    ...error.details,
    field: parameter,
    parameter,
    in: "query",
  });
}

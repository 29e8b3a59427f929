import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { listCampaigns } from "../../campaigns/list-campaigns.ts";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { getCampaign } from "../../discovery/get-campaign.ts";
import { getProblem, type ProblemEnvelope, problemEnvelope } from "../../discovery/get-problem.ts";
import { getLeaderboard } from "../../leaderboards/get-leaderboard.ts";
import type { LeaderboardEntry } from "../../leaderboards/leaderboard.ts";
import { listProblemRevisions } from "../../problems/list-problem-revisions.ts";
import { toProblem } from "../../problems/problem.ts";
import { toProblemRevision } from "../../problems/problem-revision.ts";
import { readProblem } from "../../problems/read-problem.ts";
import { type SearchProblemsResult, searchProblems } from "../../problems/search-problems.ts";
import { findRevision } from "../../sealing/find-revision.ts";
import { readProblemRevision } from "../../sealing/read-problem-revision.ts";
import { canReadRun } from "../../verification/readable-run-sql.ts";
import { readPinnedContract } from "../../verifier-contracts/read-pinned-contract.ts";
import { viewerOf } from "../../visibility/viewer.ts";
import { searchProblemsInput } from "../inputs/discovery-inputs.ts";
import { fromQueryString } from "../inputs/from-query-string.ts";
import { optionalPageCaller } from "./browser-session.ts";
import type { SiteVisitor } from "./html/render-site-page.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import { renderCampaignPage } from "./pages/render-campaign-page.ts";
import { renderErrorPage } from "./pages/render-error-page.ts";
import { type ExploreFilters, renderExplorePage } from "./pages/render-explore-page.ts";
import { renderLeaderboardPage } from "./pages/render-leaderboard-page.ts";
import { renderProblemPage } from "./pages/render-problem-page.ts";
import { renderRevisionDiffPage } from "./pages/render-revision-diff-page.ts";
import { publicBaseUrl, type RouteContext } from "./request-principal.ts";

/** Explore's query: search_problems' fields (`q` for the query, `scope` for standalone). */
const { query, structure, status, order, cursor } = searchProblemsInput.shape;
const exploreQuery = fromQueryString(
  z.object({
    q: query,
    structure,
    status,
    order,
    cursor,
    scope: z.enum(["standalone", "campaigns"]).optional(),
  }),
);
const revisionNumber = z.coerce.number().int().min(1).max(2_147_483_647);
const diffQuery = z.object({ from: revisionNumber, to: revisionNumber });
const PAGE_SIZE = 50;

/**
 * The website's reading pages: Explore (`/`), a Campaign (`/campaigns/{slug}`), a Problem
 * (`/problems/{slug}`, `?revision=N`) and the changes between two revisions
 * (`/problems/{slug}/diff?from=A&to=B`). Listed work is public: a visitor who is not signed in
 * reads it (and no bytes); signed in, the visitor also sees their own work, links to public bytes
 * and their sealed-work allowance. Every read goes through the same functions as the MCP tools,
 * so the same visibility and withholding rules apply. A refusal is a page that says why.
 */
export const siteRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const visitorOf = (request: FastifyRequest, context: RouteContext | null): SiteVisitor => ({
    handle: context?.principal.user.handle ?? null,
    path: request.url,
  });
  /** Runs a page; a ServiceError becomes a page with its status, code and message. */
  const page =
    (
      render: (
        request: FastifyRequest,
        reply: FastifyReply,
        context: RouteContext | null,
      ) => Promise<unknown>,
    ) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const context = await optionalPageCaller(services, request, reply);
      reply.header("cache-control", "private, max-age=0");
      try {
        return await render(request, reply, context);
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        reply.status(error.status);
        return sendHtmlPage(reply, renderErrorPage(error.code, error.message, visitorOf(request, context)));
      }
    };

  app.get(
    "/",
    page(async (request, reply, context) => {
      const raw = Object.fromEntries(
        Object.entries(request.query as Record<string, string>).filter(([, value]) => value !== ""),
      );
      const parsed = exploreQuery.safeParse(raw);
      const filters: ExploreFilters = {
        q: typeof raw.q === "string" ? raw.q : "",
        structure: typeof raw.structure === "string" ? raw.structure : "",
        status: typeof raw.status === "string" ? raw.status : "open",
        scope: raw.scope === "standalone" || raw.scope === "campaigns" ? raw.scope : "",
        order: typeof raw.order === "string" ? raw.order : "priority",
      };
      const viewer = context ? viewerOf(context.principal) : null;
      const { campaigns } = await listCampaigns(services.sql, viewer);
      let result: SearchProblemsResult | null = null;
      let error: string | null = null;
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        error = `${issue.path.join(".") || "query"}: ${issue.message}`;
      } else {
        const { q, scope, ...rest } = parsed.data;
        try {
          result = await searchProblems(services.sql, viewer, {
            ...rest,
            query: q,
            standalone: scope === undefined ? undefined : scope === "standalone",
            limit: PAGE_SIZE,
          });
        } catch (caught) {
          if (!(caught instanceof ServiceError)) throw caught;
          reply.status(caught.status);
          error = caught.message;
        }
      }
      const next = result?.cursor
        ? `/?${new URLSearchParams({ ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== "")), cursor: result.cursor })}`
        : null;
      return sendHtmlPage(
        reply,
        renderExplorePage({ filters, campaigns, result, error, nextHref: next }, visitorOf(request, context)),
      );
    }),
  );

  app.get(
    "/campaigns/:campaign",
    page(async (request, reply, context) => {
      const { campaign } = request.params as { campaign: string };
      const cursorText = (request.query as { cursor?: string }).cursor;
      const result = await getCampaign(services.sql, context ? viewerOf(context.principal) : null, {
        campaign,
        limit: PAGE_SIZE,
        cursor: cursorText || undefined,
      });
      const next = result.open_problems_cursor
        ? `/campaigns/${encodeURIComponent(result.campaign.slug)}?cursor=${encodeURIComponent(result.open_problems_cursor)}`
        : null;
      return sendHtmlPage(reply, renderCampaignPage(result, next, visitorOf(request, context)));
    }),
  );

  app.get(
    "/problems/:problem",
    page(async (request, reply, context) => {
      const { problem } = request.params as { problem: string };
      const revisionText = (request.query as { revision?: string }).revision;
      const revision = revisionText ? parseRevision("revision", revisionText) : undefined;
      let envelope: ProblemEnvelope;
      if (context) {
        envelope = await getProblem(services, context, viewerOf(context.principal), { problem, revision });
      } else {
        // Signed out: the listed Problem's envelope, with no attempt summary.
        const found = await readProblemRevision(services.sql, null, problem, revision);
        const baseUrl = publicBaseUrl(services, request);
        envelope = await problemEnvelope(
          services,
          { baseUrl },
          found.problem,
          found.revision,
          services.clock(),
        );
      }
      const history = await listProblemRevisions(services.sql, envelope.problem.id);
      const contract = envelope.revision.verifier_contract_id
        ? await readPinnedContract(services.sql, envelope.revision.verifier_contract_id)
        : null;
      return sendHtmlPage(
        reply,
        renderProblemPage(
          { envelope, history, contract, signedIn: context !== null },
          visitorOf(request, context),
        ),
      );
    }),
  );

  app.get(
    "/problems/:problem/leaderboard",
    page(async (request, reply, context) => {
      const { problem } = request.params as { problem: string };
      const revisionText = (request.query as { revision?: string }).revision;
      const viewer = context ? viewerOf(context.principal) : null;
      const board = await getLeaderboard(
        services.sql,
        { viewer, now: services.clock() },
        { problem, revision: revisionText ? parseRevision("revision", revisionText) : undefined },
      );
      const { title, owner_user_id } = await readProblem(services.sql, viewer, board.problem_id);
      const canOpenRun = (entry: LeaderboardEntry) =>
        canReadRun(viewer, { submitterUserId: entry.participant.user_id, problemOwnerUserId: owner_user_id });
      return sendHtmlPage(
        reply,
        renderLeaderboardPage(board, title, visitorOf(request, context), canOpenRun),
      );
    }),
  );

  app.get(
    "/problems/:problem/diff",
    page(async (request, reply, context) => {
      const { problem } = request.params as { problem: string };
      const parsed = diffQuery.safeParse(request.query);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new ServiceError(
          "invalid_input",
          `${issue.path.join(".")}: give two revision numbers, as ?from=1&to=2`,
          { field: String(issue.path[0] ?? "from") },
        );
      }
      const row = await readProblem(services.sql, context ? viewerOf(context.principal) : null, problem);
      const from = toProblemRevision(await findRevision(services.sql, row, parsed.data.from));
      const to = toProblemRevision(await findRevision(services.sql, row, parsed.data.to));
      return sendHtmlPage(
        reply,
        renderRevisionDiffPage(toProblem(row), from, to, visitorOf(request, context)),
      );
    }),
  );
};

function parseRevision(field: string, text: string): number {
  const parsed = revisionNumber.safeParse(text);
  if (!parsed.success) {
    throw new ServiceError(
      "invalid_input",
      `${field} must be a revision number (1, 2, ...), not "${text.slice(0, 40)}"`,
      {
        field,
      },
    );
  }
  return parsed.data;
}

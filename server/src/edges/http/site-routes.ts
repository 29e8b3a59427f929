import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { latestLogIndexes } from "../../attestations/read-run-attestations.ts";
import { listCampaigns } from "../../campaigns/list-campaigns.ts";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { getCampaign } from "../../discovery/get-campaign.ts";
import { getProblem, type ProblemEnvelope, problemEnvelope } from "../../discovery/get-problem.ts";
import { campaignStandings } from "../../leaderboards/campaign-standings.ts";
import { countEntries } from "../../leaderboards/count-entries.ts";
import { getLeaderboard } from "../../leaderboards/get-leaderboard.ts";
import type { LeaderboardEntry } from "../../leaderboards/leaderboard.ts";
import { readBoards } from "../../leaderboards/read-boards.ts";
import { listProblemRevisions } from "../../problems/list-problem-revisions.ts";
import { toProblem } from "../../problems/problem.ts";
import { toProblemRevision } from "../../problems/problem-revision.ts";
import { readProblem } from "../../problems/read-problem.ts";
import { type SearchProblemsResult, searchProblems } from "../../problems/search-problems.ts";
import { checkCutoff, quotaExhausted } from "../../sealing/check-sealed-intake.ts";
import { findRevision } from "../../sealing/find-revision.ts";
import { readProblemRevision } from "../../sealing/read-problem-revision.ts";
import type { SealingPolicy } from "../../sealing/sealing-policy.ts";
import { sessionSecretOf } from "../../sessions/sessions.ts";
import { readSubmissions } from "../../submissions/read-submissions.ts";
import { readContractTerms } from "../../submissions/submission-requirements.ts";
import { canReadRun } from "../../verification/readable-run-sql.ts";
import { readPinnedContract } from "../../verifier-contracts/read-pinned-contract.ts";
import { viewerOf } from "../../visibility/viewer.ts";
import { searchProblemsInput } from "../inputs/discovery-inputs.ts";
import { fromQueryString } from "../inputs/from-query-string.ts";
import { browserSecret, optionalPageCaller } from "./browser-session.ts";
import { csrfField } from "./form-posts.ts";
import type { SiteVisitor } from "./html/render-site-page.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import { renderCampaignLeaderboardPage, renderCampaignPage } from "./pages/render-campaign-page.ts";
import { renderErrorPage } from "./pages/render-error-page.ts";
import { type ExploreFilters, renderExplorePage } from "./pages/render-explore-page.ts";
import { renderLeaderboardPage } from "./pages/render-leaderboard-page.ts";
import { renderProblemPage } from "./pages/render-problem-page.ts";
import { renderRevisionDiffPage } from "./pages/render-revision-diff-page.ts";
import type { Participation } from "./pages/render-submit-form.ts";
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
    "/campaigns/:campaign/leaderboard",
    page(async (request, reply, context) => {
      const { campaign } = request.params as { campaign: string };
      const viewer = context ? viewerOf(context.principal) : null;
      const result = await getCampaign(services.sql, viewer, { campaign, limit: PAGE_SIZE });
      const boards = await readBoards(
        services.sql,
        { viewer, now: services.clock() },
        result.open_problems.map((p) => p.id),
      );
      return sendHtmlPage(
        reply,
        renderCampaignLeaderboardPage(
          result.campaign,
          boards.filter((b) => b.withheld === null).map((b) => b.problem_slug),
          campaignStandings(boards),
          viewer?.userId ?? null,
          visitorOf(request, context),
        ),
      );
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
      const terms = await readContractTerms(services.sql, envelope.revision.verifier_contract_id);
      const participation = context ? await participationOf(request, reply, context, envelope) : null;
      return sendHtmlPage(
        reply,
        renderProblemPage(
          {
            envelope,
            history,
            contract,
            signedIn: context !== null,
            requirements: terms?.requirements ?? null,
            participation,
            baseUrl: publicBaseUrl(services, request),
          },
          visitorOf(request, context),
        ),
      );
    }),
  );

  /**
   * The signed-in reader's part in a Problem: their Submissions on it, their active Attempts, the
   * form's CSRF field (a browser session only: a bearer token cannot post forms), and why a
   * Submission would be refused now (archived, the sealed cutoff, the quota), in the words of the
   * refusal create_submission would give.
   */
  async function participationOf(
    request: FastifyRequest,
    reply: FastifyReply,
    context: RouteContext,
    envelope: ProblemEnvelope,
  ): Promise<Participation> {
    const viewer = viewerOf(context.principal);
    const submissions = await readSubmissions(
      services.sql,
      { problemId: envelope.problem.id, userId: viewer.userId },
      { viewer, now: services.clock() },
    );
    const session = request.headers.authorization === undefined && sessionSecretOf(request.headers.cookie);
    let closed: string | null = null;
    if (envelope.problem.status !== "open") closed = "This problem is archived and takes no new submissions.";
    else if (envelope.revision.revision_number !== envelope.problem.current_revision_number)
      closed = "Submissions go to the current revision: open it to submit.";
    else {
      try {
        const sealing = envelope.revision.sealing as SealingPolicy | null;
        if (sealing) checkCutoff(sealing, services.clock());
        const allowance = envelope.submission_allowance;
        if (allowance && allowance.remaining === 0) throw quotaExhausted(allowance);
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        closed = `Not now: ${error.message}.`;
      }
    }
    return {
      csrf: session ? csrfField(services, browserSecret(services, request, reply)) : null,
      activeAttemptIds: envelope.attempt_summary?.active_attempt_ids ?? [],
      submissions,
      closed,
    };
  }

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
      const entries = await countEntries(
        services.sql,
        board.problem_revision_id,
        board.entries.map((entry) => entry.participant.user_id),
      );
      return sendHtmlPage(
        reply,
        renderLeaderboardPage(
          board,
          title,
          visitorOf(request, context),
          canOpenRun,
          viewer?.userId ?? null,
          entries,
          await latestLogIndexes(
            services.sql,
            board.entries.map((entry) => entry.verification_run_id),
          ),
        ),
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

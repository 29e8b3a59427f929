import type { FastifyPluginAsync } from "fastify";
import { listMyAttempts } from "../../attempts/list-my-attempts.ts";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { ownStandings } from "../../leaderboards/campaign-standings.ts";
import { readBoards, scoredProblemsOf } from "../../leaderboards/read-boards.ts";
import { readSubmissions } from "../../submissions/read-submissions.ts";
import { viewerOf } from "../../visibility/viewer.ts";
import { pageCaller } from "./browser-session.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import { renderDashboardPage } from "./pages/render-dashboard-page.ts";
import { renderErrorPage } from "./pages/render-error-page.ts";

/** Attempts per dashboard page: each brings its Submissions along. */
const PAGE_SIZE = 20;
/** Leaderboards read for "Your best scores": the Problems scored on most recently. */
const BEST_SCORES = 10;

/**
 * The participant's dashboard, `GET /me` (`?cursor=` for the next page): signed in only (the
 * session or a bearer token; a browser with neither goes to sign-in and back). It reads through
 * list_my_attempts and the Submission read of list_submissions (one query for the whole page), so
 * the same ownership and sealed withholding apply. A
 * cursor that is not one of ours is a page saying so.
 */
export const dashboardRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Querystring: { cursor?: string } }>("/me", async (request, reply) => {
    const context = await pageCaller(services, request, reply);
    if (!context) return reply;
    reply.header("cache-control", "private, max-age=0");
    const visitor = { handle: context.principal.user.handle, path: request.url };
    const cursor =
      typeof request.query.cursor === "string" && request.query.cursor !== ""
        ? request.query.cursor
        : undefined;
    try {
      if (cursor !== undefined && cursor.length > 4096) {
        throw new ServiceError("invalid_input", "cursor: use the Next page link; this cursor is too long", {
          field: "cursor",
        });
      }
      const page = await listMyAttempts(services, context, { limit: PAGE_SIZE, cursor });
      // One query for the page's Submissions, not one per Attempt: the Attempts are the caller's own.
      const submissions = await readSubmissions(
        services.sql,
        { attemptIds: page.attempts.map((attempt) => attempt.id), userId: context.principal.user.id },
        { viewer: viewerOf(context.principal), now: services.clock() },
      );
      const attempts = page.attempts.map((attempt) => ({
        attempt,
        submissions: submissions.filter((submission) => submission.attempt_id === attempt.id),
      }));
      const nextHref = page.cursor ? `/me?${new URLSearchParams({ cursor: page.cursor })}` : null;
      // Your best score on each Problem you scored on, as its leaderboard ranks it (first page only).
      const reader = { viewer: viewerOf(context.principal), now: services.clock() };
      const best =
        cursor === undefined
          ? ownStandings(
              await readBoards(
                services.sql,
                reader,
                await scoredProblemsOf(services.sql, context.principal.user.id, BEST_SCORES),
              ),
              context.principal.user.id,
            )
          : [];
      return sendHtmlPage(
        reply,
        renderDashboardPage({ attempts, nextHref, paged: cursor !== undefined, best }, visitor),
      );
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      reply.status(error.status);
      return sendHtmlPage(reply, renderErrorPage(error.code, error.message, visitor));
    }
  });
};

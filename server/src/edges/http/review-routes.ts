import type { FastifyPluginAsync } from "fastify";
import type { Services } from "../../core/services/services.ts";
import { getReviewAssignment } from "../../reviews/read/get-review-assignment.ts";
import { getReviewCase } from "../../reviews/read/get-review-case.ts";
import { viewerOf } from "../../visibility/viewer.ts";
import { pageCaller } from "./browser-session.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import { renderReviewAssignmentPage } from "./pages/render-review-assignment-page.ts";
import { renderReviewCasePage } from "./pages/render-review-case-page.ts";
import { prefersJson } from "./prefers-json.ts";

/**
 * The review pages behind `case_url` and `assignment_url` (spec 4.1 "Links"), HTML by default and
 * the tool's JSON when the request prefers `application/json`. They take the browser's session
 * or the same bearer token as `/api/*` (read scope); a browser that has neither is sent to
 * sign-in and back. They apply the same access rules and blinding as get_review_case and
 * get_review_assignment.
 *
 * - `GET /reviews/{review_process_id}/nodes/{node_id}`: the case (reading it claims nothing);
 * - `GET /review-assignments/{assignment_id}`: the assignment.
 */
export const reviewRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Params: { process: string; node: string } }>(
    "/reviews/:process/nodes/:node",
    async (request, reply) => {
      const context = await pageCaller(services, request, reply);
      if (!context) return reply;
      const result = await getReviewCase(
        services,
        viewerOf(context.principal),
        { review_process_id: request.params.process, node_id: request.params.node },
        context.baseUrl,
      );
      reply.header("cache-control", "private, max-age=0").header("vary", "accept");
      if (prefersJson(request.headers.accept)) return result;
      return sendHtmlPage(reply, renderReviewCasePage(result));
    },
  );

  app.get<{ Params: { id: string } }>("/review-assignments/:id", async (request, reply) => {
    const context = await pageCaller(services, request, reply);
    if (!context) return reply;
    const result = await getReviewAssignment(
      services,
      viewerOf(context.principal),
      request.params.id,
      context.baseUrl,
    );
    reply.header("cache-control", "private, max-age=0").header("vary", "accept");
    if (prefersJson(request.headers.accept)) return result;
    return sendHtmlPage(reply, renderReviewAssignmentPage(result));
  });
};

import { AssignmentStatus, IdPrefix, idPattern } from "@svc/schemas";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { ResponseProblem } from "../../core/services/review-response.ts";
import type { Services } from "../../core/services/services.ts";
import { claimReview } from "../../reviews/claim-review.ts";
import { declineReviewAssignment } from "../../reviews/decline-review-assignment.ts";
import {
  getReviewAssignment,
  type ReviewAssignmentResult,
} from "../../reviews/read/get-review-assignment.ts";
import { getReviewCase } from "../../reviews/read/get-review-case.ts";
import { getReviewProcess } from "../../reviews/read/get-review-process.ts";
import { listMyReviewAssignments } from "../../reviews/read/list-my-review-assignments.ts";
import { type PickedSeat, pickReview } from "../../reviews/read/pick-review.ts";
import { submitReviewResponse } from "../../reviews/submit-review-response.ts";
import type { Principal } from "../../users/principal.ts";
import { viewerOf } from "../../visibility/viewer.ts";
import { browserSecret, formPrincipal, pageCaller } from "./browser-session.ts";
import { acceptFormPosts, csrfField, type FormBody, formOf } from "./form-posts.ts";
import type { SiteVisitor } from "./html/render-site-page.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import { renderReviewAssignmentPage } from "./pages/render-review-assignment-page.ts";
import { renderReviewCasePage } from "./pages/render-review-case-page.ts";
import { renderReviewProcessPage } from "./pages/render-review-process-page.ts";
import { claimPath, renderMyAssignmentsPage, renderOpenSeatsPage } from "./pages/render-review-seat-pages.ts";
import { type FormRubric, readResponseForm } from "./pages/review-response-form.ts";
import { prefersJson } from "./prefers-json.ts";
import { publicBaseUrl } from "./request-principal.ts";
import { siteErrorPage } from "./site-error-page.ts";

/** A review response's form carries up to 20,000 characters of rationale and citations: 256 KiB. */
const RESPONSE_BODY_LIMIT = 256 * 1024;
const PROCESS_ID = idPattern(IdPrefix.reviewProcess);
const ASSIGNMENT_ID = idPattern(IdPrefix.reviewAssignment);
const NODE_ID = /^[a-z][a-z0-9_]{0,39}$/;
const NOTICES = { declined: "Seat declined: it reopens for others." } as const;

/**
 * The reviewing pages. The case and assignment pages are what `case_url` and `assignment_url`
 * (spec 4.1 "Links") point at: HTML by default and the tool's JSON when the request prefers
 * `application/json`; they take the browser's session or the same bearer token as `/api/*`
 * (read scope), and a browser with neither is sent to sign-in and back. Every read and write
 * calls the same function as its MCP tool, so access rules, blinding and the rubric are theirs.
 *
 * - `GET /reviews`: open seats (pick_review), `?problem=` / `?campaign=` to narrow, each with a
 *   Claim button;
 * - `GET /reviews/mine`: my assignments (list_my_review_assignments), `?status=`, `?cursor=`;
 * - `GET /reviews/{review_process_id}/nodes/{node_id}`: the case (reading it claims nothing), with
 *   a Claim button when a seat is free;
 * - `GET /review-processes/{review_process_id}`: the process (get_review_process), linked from
 *   the case and assignment pages;
 * - `GET /review-assignments/{assignment_id}`: the assignment; for its holder while the claim is
 *   live, the hold's remaining time, the response form generated from the rubric and Decline.
 *
 * The forms (signed-in browsers only, CSRF-checked): `POST /reviews/{rpr}/nodes/{node}/claim`
 * (claim_review, then to the assignment), `POST /review-assignments/{ras}/response`
 * (submit_review_response; a refusal re-renders the page with each problem and the values
 * entered, the claim kept) and `POST /review-assignments/{ras}/decline`
 * (decline_review_assignment, then to my assignments).
 */
export const reviewRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  // A refusal (a claim refused, an unknown case) is a page of the site that says why, with its status.
  acceptFormPosts(app, services, {
    bodyLimit: RESPONSE_BODY_LIMIT,
    errorPage: siteErrorPage(services),
  });
  const visitorOf = (request: FastifyRequest, principal: Principal): SiteVisitor => ({
    handle: principal.user.handle,
    path: request.url,
  });

  app.get<{ Querystring: { problem?: string; campaign?: string } }>("/reviews", async (request, reply) => {
    const context = await pageCaller(services, request, reply);
    if (!context) return reply;
    reply.header("cache-control", "private, max-age=0");
    const filters = {
      problem: typeof request.query.problem === "string" ? request.query.problem.trim().slice(0, 200) : "",
      campaign: typeof request.query.campaign === "string" ? request.query.campaign.trim().slice(0, 200) : "",
    };
    let seats: PickedSeat[] = [];
    let error: string | null = null;
    const tooLong = (["problem", "campaign"] as const).find((field) => filters[field].length > 64);
    if (tooLong) {
      reply.status(400);
      error = `${tooLong}: give a slug or id of at most 64 characters`;
      if (prefersJson(request.headers.accept))
        throw new ServiceError("invalid_input", error, { field: tooLong });
    } else {
      try {
        ({ seats } = await pickReview(
          services,
          viewerOf(context.principal),
          { problem: filters.problem || undefined, campaign: filters.campaign || undefined, limit: 100 },
          context.baseUrl,
        ));
      } catch (caught) {
        if (!(caught instanceof ServiceError) || prefersJson(request.headers.accept)) throw caught;
        reply.status(caught.status);
        error = caught.message;
      }
    }
    if (prefersJson(request.headers.accept)) return { seats };
    return sendHtmlPage(
      reply,
      renderOpenSeatsPage(
        { seats, filters, error, csrf: csrfField(services, browserSecret(services, request, reply)) },
        visitorOf(request, context.principal),
      ),
    );
  });

  app.get<{ Querystring: { status?: string; cursor?: string; done?: string } }>(
    "/reviews/mine",
    async (request, reply) => {
      const context = await pageCaller(services, request, reply);
      if (!context) return reply;
      reply.header("cache-control", "private, max-age=0");
      const { status, cursor, done } = request.query;
      if (status && !Object.hasOwn(AssignmentStatus, status)) {
        throw new ServiceError(
          "invalid_input",
          `status: choose one of ${Object.values(AssignmentStatus).join(", ")}, or leave it empty for any`,
          { field: "status" },
        );
      }
      if (cursor && cursor.length > 200) {
        throw new ServiceError("invalid_input", "cursor: use the Next page link; this cursor is too long", {
          field: "cursor",
        });
      }
      const page = await listMyReviewAssignments(
        services,
        viewerOf(context.principal),
        {
          status: (status || undefined) as AssignmentStatus | undefined,
          cursor: cursor || undefined,
          limit: 50,
        },
        context.baseUrl,
      );
      if (prefersJson(request.headers.accept)) return page;
      const next = page.next_cursor
        ? `/reviews/mine?${new URLSearchParams({ ...(status ? { status } : {}), cursor: page.next_cursor })}`
        : null;
      return sendHtmlPage(
        reply,
        renderMyAssignmentsPage(
          {
            assignments: page.assignments,
            status: status ?? "",
            nextHref: next,
            notice:
              done !== undefined && Object.hasOwn(NOTICES, done)
                ? NOTICES[done as keyof typeof NOTICES]
                : null,
          },
          visitorOf(request, context.principal),
        ),
      );
    },
  );

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
      const c = result.review_case;
      return sendHtmlPage(
        reply,
        renderReviewCasePage(result, visitorOf(request, context.principal), {
          action: claimPath(c.review_process_id, c.node_id),
          csrf: csrfField(services, browserSecret(services, request, reply)),
        }),
      );
    },
  );

  app.get<{ Params: { id: string } }>("/review-processes/:id", async (request, reply) => {
    const context = await pageCaller(services, request, reply);
    if (!context) return reply;
    const view = await getReviewProcess(
      services,
      viewerOf(context.principal),
      request.params.id,
      context.baseUrl,
    );
    reply.header("cache-control", "private, max-age=0").header("vary", "accept");
    if (prefersJson(request.headers.accept)) return { review_process: view };
    return sendHtmlPage(reply, renderReviewProcessPage(view, visitorOf(request, context.principal)));
  });

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
    return sendAssignmentPage(request, reply, context.principal, result, {}, null);
  });

  app.post<{ Params: { process: string; node: string } }>(
    "/reviews/:process/nodes/:node/claim",
    async (request, reply) => {
      const principal = await signedInPrincipal(request, reply);
      if (!principal) return reply;
      const { process, node } = request.params;
      if (!PROCESS_ID.test(process) || !NODE_ID.test(node))
        throw notFound(`review node ${process} / ${node}`);
      const row = await claimReview(services, principal.user.id, {
        review_process_id: process,
        node_id: node,
      });
      return reply
        .header("cache-control", "no-store")
        .redirect(`/review-assignments/${encodeURIComponent(row.id)}`, 303);
    },
  );

  app.post<{ Params: { id: string } }>("/review-assignments/:id/decline", async (request, reply) => {
    const principal = await signedInPrincipal(request, reply);
    if (!principal) return reply;
    if (!ASSIGNMENT_ID.test(request.params.id)) throw notFound(`assignment ${request.params.id}`);
    await declineReviewAssignment(services, principal.user.id, request.params.id);
    return reply.header("cache-control", "no-store").redirect("/reviews/mine?done=declined", 303);
  });

  app.post<{ Params: { id: string } }>("/review-assignments/:id/response", async (request, reply) => {
    const principal = await signedInPrincipal(request, reply);
    if (!principal) return reply;
    const { id } = request.params;
    if (!ASSIGNMENT_ID.test(id)) throw notFound(`assignment ${id}`);
    const viewer = viewerOf(principal);
    const baseUrl = publicBaseUrl(services, request);
    const before = await getReviewAssignment(services, viewer, id, baseUrl);
    const rubric = rubricOf(before);
    if (rubric === null || before.assignment.reviewer_user_id !== principal.user.id) {
      throw new ServiceError(
        "assignment_ended",
        `assignment ${id} is ${before.assignment.status}: you hold no live claim on it to respond to`,
        { assignment_id: id },
      );
    }
    const form = formOf(request);
    try {
      await submitReviewResponse(services, principal.user.id, {
        assignment_id: id,
        ...readResponseForm(rubric, form),
      });
    } catch (error) {
      if (!(error instanceof ServiceError) || error.code !== "response_rejected") throw error;
      const problems = (
        (error.details as { problems?: ResponseProblem[] } | undefined)?.problems ?? []
      ).slice();
      reply.status(error.status);
      const now = await getReviewAssignment(services, viewer, id, baseUrl);
      return sendAssignmentPage(request, reply, principal, now, form, { message: error.message, problems });
    }
    return reply
      .header("cache-control", "no-store")
      .redirect(`/review-assignments/${encodeURIComponent(id)}`, 303);
  });

  const signedInPrincipal = (request: FastifyRequest, reply: FastifyReply) =>
    formPrincipal(services, request, reply);

  function sendAssignmentPage(
    request: FastifyRequest,
    reply: FastifyReply,
    principal: Principal,
    result: ReviewAssignmentResult,
    values: FormBody,
    refusal: { message: string; problems: ResponseProblem[] } | null,
  ) {
    const a = result.assignment;
    const holder = a.reviewer_user_id === principal.user.id && a.status === "claimed" && rubricOf(result);
    const actions = holder
      ? {
          form: {
            action: `/review-assignments/${encodeURIComponent(a.id)}/response`,
            csrf: csrfField(services, browserSecret(services, request, reply)),
            values,
          },
          declineAction: `/review-assignments/${encodeURIComponent(a.id)}/decline`,
          now: services.clock(),
          refusal,
        }
      : null;
    return sendHtmlPage(reply, renderReviewAssignmentPage(result, visitorOf(request, principal), actions));
  }
};

/** The rubric of a live claim's bundle, or null when there is none (the claim ended). */
function rubricOf(result: ReviewAssignmentResult): FormRubric | null {
  const bundle = result.bundle as unknown as { rubric?: FormRubric } | null;
  return result.assignment.status === "claimed" && bundle?.rubric ? bundle.rubric : null;
}

function notFound(what: string): ServiceError {
  return new ServiceError("not_found", `no ${what.slice(0, 120)}: open it from your review pages`);
}

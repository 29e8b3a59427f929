import { PublicationRequestStatus, Visibility } from "@svc/schemas";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { getWorkDraft } from "../../drafts/get-work-draft.ts";
import { listWorkDrafts } from "../../drafts/list-work-drafts.ts";
import { prepareWorkDraft } from "../../drafts/prepare-work-draft.ts";
import { type PublishedVisibility, publishWorkDraft } from "../../drafts/publish-work-draft.ts";
import { saveWorkDraft } from "../../drafts/save-work-draft.ts";
import { describeRequests } from "../../publication-requests/describe-requests.ts";
import { listDraftPublicationRequests } from "../../publication-requests/list-draft-publication-requests.ts";
import { listPublicationRequests } from "../../publication-requests/list-publication-requests.ts";
import { requestWorkPublication } from "../../publication-requests/request-work-publication.ts";
import { ReviewDecision, reviewWorkPublication } from "../../publication-requests/review-work-publication.ts";
import type { Principal } from "../../users/principal.ts";
import { type Viewer, viewerOf } from "../../visibility/viewer.ts";
import { listWorkAudit } from "../../work-audit/list-work-audit.ts";
import { browserSecret, formPrincipal, pageCaller } from "./browser-session.ts";
import { acceptFormPosts, csrfField, type FormBody, formOf } from "./form-posts.ts";
import type { SiteVisitor } from "./html/render-site-page.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import {
  renderDraftListPage,
  renderDraftPage,
  renderPublicationRequestsPage,
} from "./pages/render-draft-pages.ts";
import { siteErrorPage } from "./site-error-page.ts";

/** The largest draft form: one text file of a package and the fields around it. */
const DRAFT_FORM_BYTES = 1024 * 1024;

/** The bytes of a stored blob (a draft's file). */
async function readAll(stream: NodeJS.ReadableStream | null): Promise<Buffer> {
  if (!stream) throw new ServiceError("not_found", "a file of this draft is missing from the store");
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/** What a form did, shown on the page it goes back to. */
const NOTICES = {
  saved: "Saved: a new version of the draft.",
  requested: "Publication requested: an administrator will approve or reject it.",
  prepared: "Prepared: this version is materialized as private work.",
  published: "Published: the draft's work has the visibility asked for.",
  withdraw: "Request withdrawn.",
  approve: "Approved: the pinned version is published.",
  reject: "Rejected, with your reason.",
} as const;
type Notice = keyof typeof NOTICES;
const noticeOf = (done: string | undefined) =>
  done !== undefined && Object.hasOwn(NOTICES, done) ? NOTICES[done as Notice] : null;

/**
 * The drafts and publication-request pages (issue 16), over the same functions as their MCP
 * tools: `GET /work/drafts` (list_work_drafts), `GET /work/drafts/{id}` (get_work_draft, the
 * draft's requests and its list_work_audit history) and, for administrators,
 * `GET /work/publication-requests` (list_publication_requests, pending ones). The forms are for
 * signed-in browsers, CSRF-checked in this scope:
 *
 * - `POST /work/drafts/{id}/request-publication` (request_work_publication pinning the version shown);
 * - `POST /work/drafts/{id}/prepare` and `POST /work/drafts/{id}/publish` (prepare_work_draft,
 *   publish_work_draft, with the version shown as expected_version);
 * - `POST /work/publication-requests/{id}/review` (review_work_publication: withdraw by the
 *   requester; approve or reject, with a reason, by an administrator).
 *
 * Another user's draft is not_found; a refusal is a page with its code and message.
 */
export const draftRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  acceptFormPosts(app, services, {
    errorPage: siteErrorPage(services),
    // The file form carries a text file of the package.
    bodyLimit: DRAFT_FORM_BYTES,
  });
  const visitorOf = (principal: Principal, path: string): SiteVisitor => ({
    handle: principal.user.handle,
    path,
  });

  app.get<{ Querystring: { cursor?: string } }>("/work/drafts", async (request, reply) => {
    const context = await pageCaller(services, request, reply);
    if (!context) return reply;
    const viewer = viewerOf(context.principal);
    const page = await listWorkDrafts(services.sql, viewer, { cursor: request.query.cursor });
    reply.header("cache-control", "private, no-store");
    const nextHref = page.next_cursor ? `/work/drafts?cursor=${encodeURIComponent(page.next_cursor)}` : null;
    return sendHtmlPage(
      reply,
      renderDraftListPage({ drafts: page.drafts, nextHref }, visitorOf(context.principal, "/work/drafts")),
    );
  });

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>(
    "/work/drafts/:id",
    async (request, reply) => {
      const context = await pageCaller(services, request, reply);
      if (!context) return reply;
      const viewer = viewerOf(context.principal);
      const { id } = request.params;
      const { draft } = await getWorkDraft(services.sql, viewer, id);
      const requests = await listDraftPublicationRequests(services.sql, viewer, id);
      const history = await listWorkAudit(services.sql, viewer, { draft_id: id, limit: 50 });
      reply.header("cache-control", "private, no-store");
      const csrf = csrfField(services, browserSecret(services, request, reply));
      return sendHtmlPage(
        reply,
        renderDraftPage(
          { draft, requests, history: history.entries, csrf, notice: noticeOf(request.query.done) },
          visitorOf(context.principal, `/work/drafts/${id}`),
        ),
      );
    },
  );

  app.get<{ Querystring: { cursor?: string; done?: string } }>(
    "/work/publication-requests",
    async (request, reply) => {
      const context = await pageCaller(services, request, reply);
      if (!context) return reply;
      const page = await listPublicationRequests(services.sql, viewerOf(context.principal), {
        status: PublicationRequestStatus.pending,
        cursor: request.query.cursor,
      });
      reply.header("cache-control", "private, no-store");
      const csrf = csrfField(services, browserSecret(services, request, reply));
      const nextHref = page.next_cursor
        ? `/work/publication-requests?cursor=${encodeURIComponent(page.next_cursor)}`
        : null;
      return sendHtmlPage(
        reply,
        renderPublicationRequestsPage(
          {
            requests: page.requests,
            described: await describeRequests(services.sql, page.requests),
            csrf,
            notice: noticeOf(request.query.done),
            nextHref,
          },
          visitorOf(context.principal, "/work/publication-requests"),
        ),
      );
    },
  );

  /** A draft's form: the write, then back to the draft's page with its notice. */
  const draftForm =
    (notice: Notice, write: (viewer: Viewer, id: string, form: FormBody) => Promise<unknown>) =>
    async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
      const principal = await formPrincipal(services, request, reply);
      if (!principal) return reply;
      await write(viewerOf(principal), request.params.id, formOf(request));
      return reply
        .header("cache-control", "no-store")
        .redirect(`/work/drafts/${encodeURIComponent(request.params.id)}?done=${notice}`, 303);
    };

  app.post<{ Params: { id: string } }>(
    "/work/drafts/:id/request-publication",
    draftForm("requested", (viewer, id, form) =>
      requestWorkPublication(services, viewer, {
        draft_id: id,
        expected_version: expectedVersionOf(form),
        visibility: visibilityOf(form),
        note_md: form.note_md ?? "",
      }),
    ),
  );
  /**
   * `POST /work/drafts/{id}/files` (save_work_draft pinning the version shown): writes one text
   * file of the package (a new path adds it), with `delete` set removes it; every other file is
   * carried over with its bytes unchanged. The new version replaces the draft's files as a whole,
   * as the tool does.
   */
  app.post<{ Params: { id: string } }>(
    "/work/drafts/:id/files",
    draftForm("saved", async (viewer, id, form) => {
      const path = (form.path ?? "").trim();
      if (path === "") {
        throw new ServiceError("invalid_input", "path: name the file, as problem.json or statement.md", {
          field: "path",
        });
      }
      const { draft } = await getWorkDraft(services.sql, viewer, id);
      const kept = draft.files.filter((f) => f.path !== path);
      const carried = await Promise.all(
        kept.map(async (f) => ({
          path: f.path,
          content_base64: Buffer.from(await readAll(await services.blobs.get(f.content_hash))).toString(
            "base64",
          ),
        })),
      );
      const files =
        form.delete === "yes" ? carried : [...carried, { path, content_text: form.content ?? "" }];
      return saveWorkDraft(services, viewer, {
        draft_id: id,
        expected_version: expectedVersionOf(form),
        files,
      });
    }),
  );
  app.post<{ Params: { id: string } }>(
    "/work/drafts/:id/prepare",
    draftForm("prepared", (viewer, id, form) =>
      prepareWorkDraft(services, viewer, { draft_id: id, expected_version: expectedVersionOf(form) }),
    ),
  );
  app.post<{ Params: { id: string } }>(
    "/work/drafts/:id/publish",
    draftForm("published", (viewer, id, form) =>
      publishWorkDraft(services, viewer, {
        draft_id: id,
        expected_version: expectedVersionOf(form),
        visibility: visibilityOf(form),
      }),
    ),
  );

  app.post<{ Params: { id: string } }>("/work/publication-requests/:id/review", async (request, reply) => {
    const principal = await formPrincipal(services, request, reply);
    if (!principal) return reply;
    const form = formOf(request);
    const decision = form.decision ?? "";
    if (!Object.hasOwn(ReviewDecision, decision)) {
      throw new ServiceError(
        "invalid_input",
        `decision: choose one of ${Object.values(ReviewDecision).join(", ")}`,
        { field: "decision" },
      );
    }
    const reason = form.reason_md?.trim() ? form.reason_md : undefined;
    const { request: resolved } = await reviewWorkPublication(services, viewerOf(principal), {
      request_id: request.params.id,
      decision: decision as ReviewDecision,
      reason_md: reason,
    });
    const back =
      decision === ReviewDecision.withdraw && resolved.draft_id
        ? `/work/drafts/${encodeURIComponent(resolved.draft_id)}`
        : "/work/publication-requests";
    return reply.header("cache-control", "no-store").redirect(`${back}?done=${decision}`, 303);
  });
};

/** The visibility a form asks for: listed (the default) or unlisted. */
function visibilityOf(form: FormBody): PublishedVisibility {
  const visibility = form.visibility ?? Visibility.listed;
  if (visibility !== Visibility.listed && visibility !== Visibility.unlisted) {
    throw new ServiceError("invalid_input", "visibility: choose listed or unlisted", { field: "visibility" });
  }
  return visibility;
}

/** The draft version the page showed, which the write pins. */
function expectedVersionOf(form: FormBody): string {
  const expected = form.expected_version;
  if (!expected) {
    throw new ServiceError(
      "invalid_input",
      "expected_version is missing: submit the form from the draft's page",
      { field: "expected_version" },
    );
  }
  return expected;
}

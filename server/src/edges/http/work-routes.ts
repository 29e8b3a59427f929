import multipart from "@fastify/multipart";
import { Visibility } from "@svc/schemas";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { archiveCampaign } from "../../authoring/archive-campaign.ts";
import { archiveProblem } from "../../authoring/archive-problem.ts";
import { findOwnUpload } from "../../authoring/authoring-upload.ts";
import { publishAuthoringUpload } from "../../authoring/publish-authoring-upload.ts";
import { receiveAuthoringUpload } from "../../authoring/receive-authoring-upload.ts";
import { requestAuthoringUpload } from "../../authoring/request-authoring-upload.ts";
import { MAX_UPLOAD_BYTES } from "../../authoring/upload-state.ts";
import { validateAuthoringUpload } from "../../authoring/validate-authoring-upload.ts";
import { BlobRefusedError } from "../../core/blobs/index.ts";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { requestWorkPublication } from "../../publication-requests/request-work-publication.ts";
import { yankReviewProtocol } from "../../review-protocols/yank-review-protocol.ts";
import type { Principal } from "../../users/principal.ts";
import { yankVerifierImplementation } from "../../verification/yank-verifier-implementation.ts";
import { viewerOf } from "../../visibility/viewer.ts";
import { listMyWork } from "../../work/list-my-work.ts";
import { setWorkVisibility } from "../../work/set-work-visibility.ts";
import { updateWorkDetails } from "../../work/update-work-details.ts";
import { reasonMd } from "../inputs/verification-inputs.ts";
import { browserSecret, formPrincipal, pageCaller } from "./browser-session.ts";
import { acceptFormPosts, csrfField, type FormBody, formOf, readMultipartForm } from "./form-posts.ts";
import type { SiteVisitor } from "./html/render-site-page.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import { renderErrorPage } from "./pages/render-error-page.ts";
import { type MyWorkRefusal, renderMyWorkPage } from "./pages/render-my-work-page.ts";
import { renderUploadPage } from "./pages/render-upload-page.ts";
import { prefersJson } from "./prefers-json.ts";
import { publicBaseUrl } from "./request-principal.ts";
import { siteErrorPage } from "./site-error-page.ts";

/** What a form did, shown on the page it goes back to. */
const NOTICES = {
  visibility: "Visibility changed.",
  unchanged: "Visibility unchanged: the work already had it.",
  archived: "Archived: it takes no new Attempts and no new revisions.",
  yanked: "Yanked: the yank is recorded and cannot be undone.",
  details: "Details saved.",
  unchanged_details: "Details unchanged: they already read so.",
  requested: "Listing requested: an administrator will approve or reject it.",
} as const;
type Notice = keyof typeof NOTICES;
const WORK_KINDS = ["campaign", "problem"] as const;

/**
 * The authoring pages (issue 16): `GET /work` ("My work", `?page=` for Problems past the first 50: the caller's Campaigns, Problems,
 * VerifierImplementations, ReviewProtocols and uploads, listMyWork) and `GET /work/uploads/{id}`
 * (an upload's plan and reconciliation). Pages take the session or a bearer token; the forms are
 * for signed-in browsers, CSRF-checked, and each calls the same function as its MCP tool:
 *
 * - `POST /work/visibility` (set_work_visibility, with the page's snapshot as expected_snapshot);
 * - `POST /work/archive` (archive_problem or archive_campaign);
 * - `POST /work/implementations/{id}/yank` (yank_verifier_implementation) and
 *   `POST /work/review-protocols/{id}/yank` (yank_review_protocol);
 * - `POST /work/uploads/{id}/validate` and `POST /work/uploads/{id}/publish`
 *   (validate_authoring_upload, publish_authoring_upload with the page's plan_hash).
 *
 * A refusal (a stale snapshot, a missing role, a yank without a reason) re-renders the page with
 * its message beside the record, and changes nothing.
 */
export const workRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  acceptFormPosts(app, services, {
    errorPage: siteErrorPage(services),
  });
  // The package upload form is multipart, streamed (readMultipartForm); one file at most.
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 5, parts: 6 } });
  const visitorOf = (request: FastifyRequest, principal: Principal): SiteVisitor => ({
    handle: principal.user.handle,
    path: request.url,
  });

  /**
   * `POST /work/uploads` (multipart: the CSRF token, then `package`, a ZIP): the browser's way to
   * do what `svc upload` does. The file streams into the blob store (at most 64 MiB zipped, the
   * upload ceiling), then the upload is requested with the size and hash measured
   * (request_authoring_upload, its rules) and received from the stored bytes
   * (receiveAuthoringUpload, as the signed PUT is), then validated (validate_authoring_upload); the
   * browser goes to the upload's page to publish its plan.
   */
  app.post("/work/uploads", async (request, reply) => {
    const principal = await formPrincipal(services, request, reply);
    if (!principal) return reply;
    try {
      let stored: { content_hash: string; size_bytes: number } | null = null;
      for await (const part of readMultipartForm(services, request)) {
        if (part.kind !== "file") continue;
        if (part.name !== "package" || part.filename === "" || stored) {
          part.stream.resume();
          continue;
        }
        try {
          stored = await services.blobs.put(part.stream as never, { maxBytes: MAX_UPLOAD_BYTES });
        } catch (error) {
          if (!(error instanceof BlobRefusedError)) throw error;
          throw new ServiceError(
            "too_large",
            `the package is over ${MAX_UPLOAD_BYTES} bytes (64 MiB) zipped, the server's ceiling: split it into shards (svc draft shards a package); nothing was kept`,
            { field: "package", max_bytes: MAX_UPLOAD_BYTES },
          );
        }
      }
      if (!stored) {
        throw new ServiceError("invalid_input", "package: choose the package's ZIP file, then upload", {
          field: "package",
        });
      }
      const baseUrl = publicBaseUrl(services, request);
      const requested = await requestAuthoringUpload(services, principal, stored, baseUrl);
      const bytes = await services.blobs.get(stored.content_hash);
      await receiveAuthoringUpload(services, requested.upload_url.slice(baseUrl.length), bytes!);
      await validateAuthoringUpload(services, principal, { upload_id: requested.upload_id });
      return reply
        .header("cache-control", "no-store")
        .redirect(`/work/uploads/${encodeURIComponent(requested.upload_id)}`, 303);
    } catch (error) {
      reply.header("connection", "close");
      throw error;
    }
  });

  /**
   * `POST /work/details` (update_work_details under the page's snapshot): title, summary, and a
   * Problem's priority weight or a Campaign's description; an empty field is left as it is.
   */
  app.post("/work/details", (request, reply) =>
    writeThenBack(request, reply, formOf(request).work ?? "", async (principal, form) => {
      const weight = form.priority_weight?.trim();
      const priority = weight ? Number(weight) : undefined;
      if (priority !== undefined && !Number.isFinite(priority)) {
        throw new ServiceError("invalid_input", "priority_weight: give a number from 0 to 1", {
          field: "priority_weight",
        });
      }
      const result = await updateWorkDetails(services, viewerOf(principal), {
        work: workOf(form),
        expected_snapshot: required(form, "expected_snapshot", "reload the page and submit it again"),
        title: form.title?.trim() || undefined,
        summary: form.summary?.trim() || undefined,
        priority_weight: priority,
        description_md: form.description_md?.trim() || undefined,
      });
      return result.changed.length > 0 ? "details" : "unchanged_details";
    }),
  );

  /** `POST /work/request-listing` (request_work_publication pinning the page's snapshot, listed). */
  app.post("/work/request-listing", (request, reply) =>
    writeThenBack(request, reply, formOf(request).work ?? "", async (principal, form) => {
      await requestWorkPublication(services, viewerOf(principal), {
        work: workOf(form),
        expected_snapshot: required(form, "expected_snapshot", "reload the page and submit it again"),
        visibility: "listed",
        note_md: form.note_md?.trim() || undefined,
      });
      return "requested";
    }),
  );

  async function sendMyWork(
    request: FastifyRequest,
    reply: FastifyReply,
    principal: Principal,
    notice: string | null,
    refusal: MyWorkRefusal | null,
    page = 1,
  ) {
    const work = await listMyWork(services.sql, viewerOf(principal), { page });
    reply.header("cache-control", "private, no-store");
    const csrf = csrfField(services, browserSecret(services, request, reply));
    return sendHtmlPage(
      reply,
      renderMyWorkPage(
        { work, csrf, notice, refusal, page, administrator: principal.user.is_admin },
        { ...visitorOf(request, principal), path: "/work" },
      ),
    );
  }

  /** Runs a form's write; a refusal re-renders "My work" beside `subject`, else back to the page. */
  async function writeThenBack(
    request: FastifyRequest,
    reply: FastifyReply,
    subject: string,
    write: (principal: Principal, form: FormBody) => Promise<Notice>,
  ) {
    const principal = await formPrincipal(services, request, reply);
    if (!principal) return reply;
    let notice: Notice;
    try {
      notice = await write(principal, formOf(request));
    } catch (error) {
      if (!(error instanceof ServiceError) || prefersJson(request.headers.accept)) throw error;
      reply.status(error.status);
      return sendMyWork(request, reply, principal, null, {
        subject,
        code: error.code,
        message: error.message,
      });
    }
    return reply.header("cache-control", "no-store").redirect(`/work?done=${notice}`, 303);
  }

  app.get<{ Querystring: { done?: string; page?: string } }>("/work", async (request, reply) => {
    const context = await pageCaller(services, request, reply);
    if (!context) return reply;
    const { done } = request.query;
    const notice = done !== undefined && Object.hasOwn(NOTICES, done) ? NOTICES[done as Notice] : null;
    const page = request.query.page === undefined ? 1 : Number(request.query.page);
    if (!Number.isInteger(page) || page < 1 || page > 10_000) {
      const error = new ServiceError("invalid_input", "page must be a whole number from 1 to 10000", {
        field: "page",
      });
      if (prefersJson(request.headers.accept)) throw error;
      reply.status(error.status);
      return sendHtmlPage(
        reply,
        renderErrorPage(error.code, error.message, visitorOf(request, context.principal)),
      );
    }
    if (prefersJson(request.headers.accept)) {
      reply.header("cache-control", "private, no-store");
      return listMyWork(services.sql, viewerOf(context.principal), { page });
    }
    return sendMyWork(request, reply, context.principal, notice, null, page);
  });

  app.post("/work/visibility", (request, reply) =>
    writeThenBack(request, reply, formOf(request).work ?? "", async (principal, form) => {
      const work = workOf(form);
      const visibility = form.visibility ?? "";
      if (!Object.hasOwn(Visibility, visibility)) {
        throw new ServiceError(
          "invalid_input",
          `visibility: choose one of ${Object.values(Visibility).join(", ")}`,
          { field: "visibility" },
        );
      }
      const result = await setWorkVisibility(services, viewerOf(principal), {
        work,
        visibility: visibility as Visibility,
        expected_snapshot: required(form, "expected_snapshot", "reload the page and submit it again"),
      });
      return result.changed ? "visibility" : "unchanged";
    }),
  );

  app.post("/work/archive", (request, reply) =>
    writeThenBack(request, reply, formOf(request).work ?? "", async (principal, form) => {
      const work = workOf(form);
      if ("problem" in work) await archiveProblem(services, principal, work);
      else await archiveCampaign(services, principal, work);
      return "archived";
    }),
  );

  app.post<{ Params: { id: string } }>("/work/implementations/:id/yank", (request, reply) =>
    writeThenBack(request, reply, request.params.id, async (principal, form) => {
      await yankVerifierImplementation(services, viewerOf(principal), {
        verifier_implementation_id: request.params.id,
        reason_md: reasonOf(form),
      });
      return "yanked";
    }),
  );

  app.post<{ Params: { id: string } }>("/work/review-protocols/:id/yank", (request, reply) =>
    writeThenBack(request, reply, request.params.id, async (principal, form) => {
      await yankReviewProtocol(services, viewerOf(principal), {
        review_protocol_id: request.params.id,
        reason_md: reasonOf(form),
      });
      return "yanked";
    }),
  );

  async function sendUpload(
    request: FastifyRequest,
    reply: FastifyReply,
    principal: Principal,
    id: string,
    refusal: { code: string; message: string } | null,
  ) {
    const upload = await findOwnUpload(services.sql, principal.user.id, id);
    reply.header("cache-control", "private, no-store");
    const csrf = csrfField(services, browserSecret(services, request, reply));
    return sendHtmlPage(
      reply,
      renderUploadPage(
        { upload, csrf, refusal },
        { ...visitorOf(request, principal), path: `/work/uploads/${id}` },
      ),
    );
  }

  app.get<{ Params: { id: string } }>("/work/uploads/:id", async (request, reply) => {
    const context = await pageCaller(services, request, reply);
    if (!context) return reply;
    try {
      if (prefersJson(request.headers.accept)) {
        const upload = await findOwnUpload(services.sql, context.principal.user.id, request.params.id);
        reply.header("cache-control", "private, no-store");
        return {
          upload_id: upload.id,
          state: upload.state,
          plan_hash: upload.plan_hash,
          validation: upload.validation,
        };
      }
      return await sendUpload(request, reply, context.principal, request.params.id, null);
    } catch (error) {
      if (!(error instanceof ServiceError) || prefersJson(request.headers.accept)) throw error;
      reply.status(error.status);
      return sendHtmlPage(
        reply,
        renderErrorPage(error.code, error.message, visitorOf(request, context.principal)),
      );
    }
  });

  /** An upload's form: the write, then back to the upload's page; a refusal shows on it. */
  const uploadForm =
    (write: (principal: Principal, id: string, form: FormBody) => Promise<unknown>) =>
    async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
      const principal = await formPrincipal(services, request, reply);
      if (!principal) return reply;
      const { id } = request.params;
      try {
        await write(principal, id, formOf(request));
      } catch (error) {
        if (!(error instanceof ServiceError) || prefersJson(request.headers.accept)) throw error;
        if (error.code === "not_found") throw error;
        reply.status(error.status);
        return sendUpload(request, reply, principal, id, { code: error.code, message: error.message });
      }
      return reply
        .header("cache-control", "no-store")
        .redirect(`/work/uploads/${encodeURIComponent(id)}`, 303);
    };

  app.post<{ Params: { id: string } }>(
    "/work/uploads/:id/validate",
    uploadForm((principal, id) => validateAuthoringUpload(services, principal, { upload_id: id })),
  );
  app.post<{ Params: { id: string } }>(
    "/work/uploads/:id/publish",
    uploadForm((principal, id, form) =>
      publishAuthoringUpload(services, principal, {
        upload_id: id,
        plan_hash: required(form, "plan_hash", "validate the upload and publish from its page"),
      }),
    ),
  );
};

/** The work a form names: `kind` (campaign or problem) and `work` (its id or slug). */
function workOf(form: FormBody): { campaign: string } | { problem: string } {
  const kind = form.kind ?? "";
  if (!(WORK_KINDS as readonly string[]).includes(kind)) {
    throw new ServiceError(
      "invalid_input",
      "kind: must be campaign or problem; submit the form from My work",
      {
        field: "kind",
      },
    );
  }
  const name = required(form, "work", "submit the form from My work");
  if (name.length > 64) {
    throw new ServiceError("invalid_input", "work: give a slug or id of at most 64 characters", {
      field: "work",
    });
  }
  return kind === "campaign" ? { campaign: name } : { problem: name };
}

/** The yank reason, checked as the yank tools check it. */
function reasonOf(form: FormBody): string {
  const parsed = reasonMd.safeParse(form.reason_md ?? "");
  if (!parsed.success) {
    throw new ServiceError("invalid_input", `reason_md ${parsed.error.issues[0]?.message ?? "is invalid"}`, {
      field: "reason_md",
    });
  }
  return parsed.data;
}

function required(form: FormBody, field: string, fix: string): string {
  const value = form[field];
  if (!value) throw new ServiceError("invalid_input", `${field} is missing: ${fix}`, { field });
  return value;
}

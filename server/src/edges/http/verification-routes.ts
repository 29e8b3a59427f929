import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { latestLogIndex } from "../../attestations/read-run-attestations.ts";
import type { Services } from "../../core/services/services.ts";
import { evidenceListing } from "../../verification/evidence-listing.ts";
import { getVerification } from "../../verification/get-verification.ts";
import { readStageEvidence, readStageEvidenceFile, readStageLog } from "../../verification/read-stage-log.ts";
import { readRunLinks } from "../../verification/run-links.ts";
import { readWaitingStages } from "../../verification/waiting-stages.ts";
import { checkerRevisionFile, PROGRAM_MEDIA_TYPE } from "../../verifier-contracts/checker-revision-file.ts";
import { findImplementationProgram } from "../../verifier-contracts/find-implementation-program.ts";
import { viewerOf } from "../../visibility/viewer.ts";
import { readOptions } from "../inputs/discovery-inputs.ts";
import { fromQueryString } from "../inputs/from-query-string.ts";
import { problemRevisionId } from "../inputs/reference-inputs.ts";
import {
  getVerificationInput,
  programFilename,
  stageKey,
  verifierImplementationId,
} from "../inputs/verification-inputs.ts";
import { bytesResponse, jsonResponse, readErrors, verificationRunRecord } from "./api-responses.ts";
import { pageCaller } from "./browser-session.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import { renderEvidencePage } from "./pages/render-evidence-page.ts";
import { renderVerificationPage } from "./pages/render-verification-page.ts";
import { prefersJson } from "./prefers-json.ts";
import { readCaller } from "./read-caller.ts";
import { sendBlob } from "./send-blob.ts";

/**
 * The run routes (spec 4.1 HTTP routes), behind a bearer token with the read scope, for the run's
 * submitter, the Problem's owner and administrators (others get 404):
 *
 * - `GET /verifications/{id}`: the web view, or the record as JSON when the request prefers
 *   `application/json` (the canonical web route of a run, spec 2.4);
 * - `GET /api/verifications/{id}`: the record as JSON;
 * - `GET /api/verifier-implementations/{id}/program`: a script checker's exact bytes with
 *   `x-svc-content-hash`, for whoever may read its Contract;
 * - `GET /verifications/{id}/stages/{stage_key}/log`: the stage's captured output as text, with
 *   `x-svc-content-hash` and `x-svc-log-truncated`, and for a redacted log `x-svc-log-redacted`
 *   (the reason; the record itself is in the run's `log.redaction`);
 * - `GET /verifications/{id}/stages/{stage_key}/evidence`: the stage's evidence files as JSON
 *   (path, content hash, size, link target, url) with their tree digest;
 * - `GET /verifications/{id}/stages/{stage_key}/evidence/{path}`: one file's bytes, always as an
 *   attachment of type application/octet-stream (a checker's file is never rendered).
 */
export const verificationRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Params: { id: string } }>("/verifications/:id", async (request, reply) => {
    const context = await pageCaller(services, request, reply);
    if (!context) return reply;
    const run = await getVerification(
      services.sql,
      viewerOf(context.principal),
      request.params.id,
      context.baseUrl,
      services.clock(),
    );
    reply.header("cache-control", "private, max-age=0").header("vary", "accept");
    if (prefersJson(request.headers.accept)) return run;
    return sendHtmlPage(
      reply,
      renderVerificationPage(
        run,
        { handle: context.principal.user.handle, path: request.url },
        await readWaitingStages(services.sql, run.id),
        await readRunLinks(services.sql, run.id),
        { log_index: await latestLogIndex(services.sql, run.id) },
      ),
    );
  });

  const api = app.withTypeProvider<ZodTypeProvider>();
  const reader = readCaller(services);

  api.get(
    "/api/verifications/:id",
    {
      onRequest: reader.onRequest,
      schema: {
        operationId: "getVerification",
        tags: ["verification"],
        summary: "Get a verification run (get_verification)",
        description:
          "One VerificationRun: status, result, score, evidence and every stage result with its log link. " +
          "Yours, or on a Problem you manage; others get 404.",
        params: z.strictObject({ id: getVerificationInput.shape.verification_run_id }),
        querystring: fromQueryString(getVerificationInput.omit({ verification_run_id: true })),
        response: { 200: jsonResponse("The VerificationRun.", verificationRunRecord), ...readErrors },
      },
    },
    async (request) => {
      const context = reader.of(request);
      return await getVerification(
        services.sql,
        viewerOf(context.principal),
        request.params.id,
        context.baseUrl,
        services.clock(),
      );
    },
  );

  api.get(
    "/api/verifier-implementations/:id/program",
    {
      onRequest: reader.onRequest,
      schema: {
        operationId: "getVerifierImplementationProgram",
        tags: ["verification"],
        summary: "Read a script checker's program",
        description:
          "The exact bytes of a script checker's program with `x-svc-content-hash`, for whoever may read " +
          "its VerifierContract; also published as revision file checkers/<stage_key>/<filename>.",
        params: z.strictObject({ id: verifierImplementationId }),
        querystring: fromQueryString(readOptions),
        response: { 200: bytesResponse("The program's bytes.", "text/x-python"), ...readErrors },
      },
    },
    async (request, reply) => {
      const program = await findImplementationProgram(
        services.sql,
        viewerOf(reader.of(request).principal),
        request.params.id,
      );
      return sendBlob(services, reply, program.content_hash, PROGRAM_MEDIA_TYPE, program.filename);
    },
  );

  api.get(
    "/api/problem-revisions/:revision/checkers/:stage/:filename",
    {
      onRequest: reader.onRequest,
      schema: {
        operationId: "getCheckerRevisionFile",
        tags: ["verification"],
        summary: "Read a revision's checker program",
        description:
          "Revision file checkers/<stage_key>/<filename>: the program of the script checker that runs the stage of " +
          "the revision's Contract now (its current implementation), the same bytes as " +
          "/api/verifier-implementations/{id}/program, with `x-svc-content-hash` and `x-svc-verifier-implementation-id`.",
        params: z.strictObject({ revision: problemRevisionId, stage: stageKey, filename: programFilename }),
        querystring: fromQueryString(readOptions),
        response: { 200: bytesResponse("The program's bytes.", PROGRAM_MEDIA_TYPE), ...readErrors },
      },
    },
    async (request, reply) => {
      const file = await checkerRevisionFile(
        services.sql,
        viewerOf(reader.of(request).principal),
        request.params.revision,
        request.params.stage,
        request.params.filename,
      );
      reply.header("x-svc-verifier-implementation-id", file.verifier_implementation_id);
      return sendBlob(services, reply, file.content_hash, PROGRAM_MEDIA_TYPE, file.filename);
    },
  );

  app.get<{ Params: { id: string; stage: string } }>(
    "/verifications/:id/stages/:stage/log",
    async (request, reply) => {
      const context = await pageCaller(services, request, reply);
      if (!context) return reply;
      const { log, bytes } = await readStageLog(
        services,
        viewerOf(context.principal),
        request.params.id,
        request.params.stage,
      );
      if (log.redaction) reply.header("x-svc-log-redacted", log.redaction.reason);
      return reply
        .type("text/plain; charset=utf-8")
        .header("x-svc-content-hash", log.content_hash)
        .header("x-svc-log-truncated", String(log.truncated))
        .header("cache-control", "private, max-age=0")
        .send(bytes);
    },
  );

  app.get<{ Params: { id: string; stage: string } }>(
    "/verifications/:id/stages/:stage/evidence",
    async (request, reply) => {
      const context = await pageCaller(services, request, reply);
      if (!context) return reply;
      const { id, stage } = request.params;
      const evidence = await readStageEvidence(services, viewerOf(context.principal), id, stage);
      const listing = evidenceListing(context.baseUrl, id, stage, evidence);
      reply.header("cache-control", "private, max-age=0").header("vary", "accept");
      // A browser (its Accept names text/html) reads a page; a program keeps the JSON listing.
      const accept = request.headers.accept ?? "";
      if (!/text\/html/i.test(accept) || prefersJson(accept)) return reply.send(listing);
      return sendHtmlPage(
        reply,
        renderEvidencePage(listing, { handle: context.principal.user.handle, path: request.url }),
      );
    },
  );

  app.get<{ Params: { id: string; stage: string; "*": string } }>(
    "/verifications/:id/stages/:stage/evidence/*",
    async (request, reply) => {
      const context = await pageCaller(services, request, reply);
      if (!context) return reply;
      const { id, stage } = request.params;
      const { file, bytes } = await readStageEvidenceFile(
        services,
        viewerOf(context.principal),
        id,
        stage,
        request.params["*"],
      );
      const name = file.path.split("/").at(-1) ?? "evidence";
      return reply
        .type("application/octet-stream")
        .header("content-disposition", `attachment; filename*=UTF-8''${encodeURIComponent(name)}`)
        .header("x-content-type-options", "nosniff")
        .header("x-svc-content-hash", file.content_hash)
        .header("cache-control", "private, max-age=0")
        .send(bytes);
    },
  );
};

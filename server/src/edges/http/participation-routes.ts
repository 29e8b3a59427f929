import multipart from "@fastify/multipart";
import { mediaTypeOf } from "@svc/app";
import { AttemptOutcome, type RequiredArtifact } from "@svc/schemas";
import type { FastifyPluginAsync } from "fastify";
import { MAX_ARTIFACT_BYTES, MAX_INLINE_ARTIFACT_BYTES } from "../../artifacts/artifact-limits.ts";
import { recordArtifact } from "../../artifacts/upload-artifact.ts";
import { BlobRefusedError } from "../../core/blobs/index.ts";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { getProblem } from "../../discovery/get-problem.ts";
import { addNote } from "../../notes/add-note.ts";
import { checkCutoff, quotaExhausted } from "../../sealing/check-sealed-intake.ts";
import type { SealingPolicy } from "../../sealing/sealing-policy.ts";
import { endAttempt } from "../../solving/end-attempt.ts";
import { getAttempt } from "../../solving/get-attempt.ts";
import { startAttempt } from "../../solving/start-attempt.ts";
import { checkSubmissionArtifacts, requirementsUnmet } from "../../submissions/check-submission-artifacts.ts";
import { createSubmission } from "../../submissions/create-submission.ts";
import { readContractTerms } from "../../submissions/submission-requirements.ts";
import { viewerOf } from "../../visibility/viewer.ts";
import { browserSecret, formPrincipal, pageCaller } from "./browser-session.ts";
import { acceptFormPosts, csrfField, formOf, readMultipartForm } from "./form-posts.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import { renderAttemptPage } from "./pages/render-attempt-page.ts";
import { EXTENSION_OF, textMediaType } from "./pages/render-submit-form.ts";
import { publicBaseUrl } from "./request-principal.ts";
import { siteErrorPage } from "./site-error-page.ts";

/** A role's file field and its text field on the submit form. */
export const FILE_FIELD = "file:";
export const TEXT_FIELD = "text:";
/** The text answer of a Contract that accepts text only (kept as a note on the Attempt). */
export const ANSWER_FIELD = "answer_md";
/** Which Attempt the form continues, or NEW_ATTEMPT. */
export const ATTEMPT_FIELD = "attempt_id";
export const NEW_ATTEMPT = "new";

/**
 * Taking part from the browser (issue 35), each form calling the same functions as the MCP tools:
 *
 * - `POST /problems/{slug}/submit` (multipart, from the problem page): starts an Attempt
 *   (start_attempt) or continues one of the caller's active ones, streams each role's file into
 *   the blob store (at most the role's `max_bytes`, and never over an Artifact's 256 MiB), takes a
 *   role's pasted text as its file (at most upload_artifact's 512 KiB), and creates the Submission
 *   (create_submission); then shows the run. Before anything is written it applies the same rules
 *   as create_submission (the sealed cutoff and quota, then the Contract's requirements through
 *   checkSubmissionArtifacts), so a refused form leaves no Attempt, Artifact or Submission.
 * - `POST /attempts/{id}/end` (end_attempt with outcome and summary note).
 * - `GET /attempts/{id}` (get_attempt): the Attempt with its Submissions and runs, and the end form.
 */
export const participationRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  acceptFormPosts(app, services, { errorPage: siteErrorPage(services) });
  await app.register(multipart, {
    limits: {
      fieldSize: MAX_INLINE_ARTIFACT_BYTES,
      fields: 200,
      files: 100,
      fileSize: MAX_ARTIFACT_BYTES,
      parts: 300,
    },
  });

  app.post<{ Params: { problem: string } }>("/problems/:problem/submit", async (request, reply) => {
    const principal = await formPrincipal(services, request, reply);
    if (!principal) return reply;
    const caller = { principal, baseUrl: publicBaseUrl(services, request) };
    try {
      const envelope = await getProblem(services, caller, viewerOf(principal), {
        problem: request.params.problem,
      });
      const { problem, revision } = envelope;
      // The sealed refusals first, as create_submission makes them: nothing is read or stored.
      const sealing = revision.sealing as SealingPolicy | null;
      if (sealing) checkCutoff(sealing, services.clock());
      const allowance = envelope.submission_allowance;
      if (allowance && allowance.remaining === 0) throw quotaExhausted(allowance);
      const terms = await readContractTerms(services.sql, revision.verifier_contract_id);
      const roles = terms?.requirements.required_artifacts ?? [];
      const files: Array<{ role: string; filename: string; media_type: string; stored: Stored }> = [];
      let attemptChoice = NEW_ATTEMPT;
      let answer = "";
      for await (const part of readMultipartForm(services, request)) {
        if (part.kind === "field") {
          if (part.truncated) throw textTooLarge(part.name);
          if (part.name === ATTEMPT_FIELD) attemptChoice = part.value;
          else if (part.name === ANSWER_FIELD) answer = part.value;
          else if (part.name.startsWith(TEXT_FIELD) && part.value.trim() !== "") {
            const role = roleNamed(roles, part.name.slice(TEXT_FIELD.length), part.name);
            if (files.some((f) => f.role === role.role)) continue; // the file chosen wins over the text
            const media = textMediaType(role) ?? "text/plain";
            const bytes = Buffer.from(part.value, "utf8");
            files.push({
              role: role.role,
              filename: `${role.role}${EXTENSION_OF[media] ?? ".txt"}`,
              media_type: media,
              stored: await services.blobs.put(bytes),
            });
          }
          continue;
        }
        if (part.filename === "") {
          part.stream.resume(); // no file chosen for this role
          continue;
        }
        const role = roleNamed(roles, part.name.slice(FILE_FIELD.length), part.name);
        // A file chosen wins over text pasted for the same role.
        const pasted = files.findIndex((f) => f.role === role.role);
        if (pasted >= 0) files.splice(pasted, 1);
        files.push({
          role: role.role,
          filename: part.filename,
          media_type: mediaTypeFor(role, part.filename, part.mimetype),
          stored: await storeFile(services, part.stream, role, part.filename),
        });
      }
      // The Contract's rule, on what would be bound, before any record is written.
      if (terms) {
        const check = checkSubmissionArtifacts(
          terms,
          files.map((f) => ({
            role: f.role,
            artifact: {
              id: `"${f.filename}"`,
              media_type: f.media_type,
              content_hash: f.stored.content_hash,
              size_bytes: f.stored.size_bytes,
            },
          })),
        );
        if (!check.ok) throw requirementsUnmet(check.problems);
      }
      if (files.length === 0 && answer.trim() === "" && !terms?.requirements.accepts_text_only) {
        throw new ServiceError(
          "invalid_input",
          "choose a file (or paste the text) for each role, then submit",
          {
            field: "artifacts",
          },
        );
      }
      if (files.length === 0 && answer.trim() === "") {
        throw new ServiceError(
          "invalid_input",
          `${ANSWER_FIELD}: write your answer in the text box, then submit`,
          {
            field: ANSWER_FIELD,
          },
        );
      }
      if (
        attemptChoice !== NEW_ATTEMPT &&
        !envelope.attempt_summary?.active_attempt_ids.includes(attemptChoice)
      ) {
        throw new ServiceError(
          "invalid_input",
          `${ATTEMPT_FIELD}: ${attemptChoice.slice(0, 40)} is not one of your active attempts on ${problem.slug}: reload the problem page and choose again`,
          { field: ATTEMPT_FIELD },
        );
      }
      const attemptId =
        attemptChoice === NEW_ATTEMPT
          ? (
              await startAttempt(services, caller, {
                problem: problem.id,
                revision: revision.revision_number,
              })
            ).attempt.id
          : attemptChoice;
      if (answer.trim() !== "") await addNote(services, caller, { attempt_id: attemptId, body_md: answer });
      const bound: Array<{ role: string; artifact_id: string }> = [];
      for (const file of files) {
        const { artifact } = await recordArtifact(
          services,
          caller,
          { attempt_id: attemptId, filename: file.filename, media_type: file.media_type },
          file.stored,
        );
        bound.push({ role: file.role, artifact_id: artifact.id });
      }
      const created = await createSubmission(services, caller, { attempt_id: attemptId, artifacts: bound });
      const next = created.verification_run_id
        ? `/verifications/${encodeURIComponent(created.verification_run_id)}`
        : `/attempts/${encodeURIComponent(attemptId)}`;
      return reply.header("cache-control", "no-store").redirect(next, 303);
    } catch (error) {
      // The browser may still be sending a file: close rather than read the rest.
      reply.header("connection", "close");
      throw error;
    }
  });

  app.post<{ Params: { attempt: string } }>("/attempts/:attempt/end", async (request, reply) => {
    const principal = await formPrincipal(services, request, reply);
    if (!principal) return reply;
    const form = formOf(request);
    const outcome = form.outcome as AttemptOutcome;
    if (!Object.values(AttemptOutcome).includes(outcome)) {
      throw new ServiceError(
        "invalid_input",
        `outcome must be one of ${Object.values(AttemptOutcome).join(", ")}: choose one`,
        { field: "outcome" },
      );
    }
    const note = form.note_md ?? "";
    if (note.trim() === "") {
      throw new ServiceError("invalid_input", "note_md: write a summary of what you did and what is left", {
        field: "note_md",
      });
    }
    await endAttempt(
      services,
      { principal, baseUrl: publicBaseUrl(services, request) },
      {
        attempt_id: request.params.attempt,
        outcome,
        note_md: note,
      },
    );
    return reply
      .header("cache-control", "no-store")
      .redirect(`/attempts/${encodeURIComponent(request.params.attempt)}`, 303);
  });

  app.get<{ Params: { attempt: string } }>("/attempts/:attempt", async (request, reply) => {
    const context = await pageCaller(services, request, reply);
    if (!context) return reply;
    reply.header("cache-control", "private, no-store");
    const { attempt } = await getAttempt(services, context, { attempt_id: request.params.attempt });
    const own = attempt.user_id === context.principal.user.id;
    const csrf = own ? csrfField(services, browserSecret(services, request, reply)) : null;
    return sendHtmlPage(
      reply,
      renderAttemptPage(attempt, csrf, { handle: context.principal.user.handle, path: request.url }),
    );
  });
};

type Stored = { content_hash: string; size_bytes: number };

/** The role a field names, or the refusal naming the roles there are. */
function roleNamed(roles: readonly RequiredArtifact[], name: string, field: string): RequiredArtifact {
  const role = roles.find((r) => r.role === name);
  if (role) return role;
  const known = roles.map((r) => `"${r.role}"`).join(", ") || "none";
  throw new ServiceError(
    "invalid_input",
    `${field}: role "${name.slice(0, 64)}" is not one the contract declares (roles: ${known}); reload the problem page and use its form`,
    { field },
  );
}

/**
 * A file's media type: what the browser declared when the role takes it (as an agent passes
 * media_type), else what upload_artifact derives from the file name.
 */
function mediaTypeFor(role: RequiredArtifact, filename: string, declared: string | undefined): string {
  const type = (declared ?? "").split(";")[0]!.trim().toLowerCase();
  if (type && role.media_types.some((t) => t.toLowerCase() === type)) return type;
  return mediaTypeOf(filename);
}

/** Streams a role's file into the blob store, refusing it past the role's max_bytes. */
async function storeFile(
  services: Services,
  stream: NodeJS.ReadableStream,
  role: RequiredArtifact,
  filename: string,
): Promise<Stored> {
  const maxBytes = Math.min(role.max_bytes, MAX_ARTIFACT_BYTES);
  try {
    return await services.blobs.put(stream as never, { maxBytes });
  } catch (error) {
    if (!(error instanceof BlobRefusedError)) throw error;
    throw new ServiceError(
      "too_large",
      `the file "${filename.slice(0, 100)}" for role "${role.role}" is over ${maxBytes} bytes, the most that role takes: choose a smaller file (or compress it, if the role takes a compressed type); nothing was kept`,
      { field: `${FILE_FIELD}${role.role}`, max_bytes: maxBytes },
    );
  }
}

function textTooLarge(field: string): ServiceError {
  return new ServiceError(
    "too_large",
    `${field}: the text is over ${MAX_INLINE_ARTIFACT_BYTES} bytes (512 KiB), upload_artifact's limit for text: choose it as a file instead`,
    { field, max_bytes: MAX_INLINE_ARTIFACT_BYTES },
  );
}

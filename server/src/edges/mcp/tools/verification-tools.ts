import { IdPrefix, idPattern, Role, RunStatus } from "@svc/schemas";
import { z } from "zod";
import { latestLogIndex } from "../../../attestations/read-run-attestations.ts";
import { evidenceListing } from "../../../verification/evidence-listing.ts";
import { getVerification } from "../../../verification/get-verification.ts";
import { listVerifications } from "../../../verification/list-verifications.ts";
import { readStageEvidence, readStageLog } from "../../../verification/read-stage-log.ts";
import { redactStageLog } from "../../../verification/redact-stage-log.ts";
import { rerunVerification } from "../../../verification/rerun-verification.ts";
import { revokeImplementationRuns } from "../../../verification/revoke-implementation-runs.ts";
import { revokeVerification } from "../../../verification/revoke-verification.ts";
import { runWaiting } from "../../../verification/run-waiting.ts";
import { startManualVerification } from "../../../verification/start-manual-verification.ts";
import { readWaitingStages } from "../../../verification/waiting-stages.ts";
import { yankVerifierImplementation } from "../../../verification/yank-verifier-implementation.ts";
import { viewerOf } from "../../../visibility/viewer.ts";
import { getVerificationResult } from "../../http/api-responses.ts";
import { pageCursor, workingAttemptId } from "../../inputs/discovery-inputs.ts";
import {
  getVerificationInput,
  reasonMd,
  redactionReason,
  submissionId,
  verificationRunId,
  verifierImplementationId,
} from "../../inputs/verification-inputs.ts";
import { resourceBytes, resourceJson } from "../resources/resource-bytes.ts";
import type { ResourceTemplate } from "../resources/resource-template.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

const getVerificationTool = defineTool({
  name: "get_verification",
  title: "Get a verification run",
  description:
    "One VerificationRun: status (queued, running, finished), result (verified, refuted, inconclusive, error), score, " +
    "evidence_md and every stage attempted with its mechanism and log link; beside it, waiting_stages: stages not started yet " +
    "(waiting for an image, conformance or an attestation) and why; attestation_log_index: the run's newest signed " +
    "attestation in the transparency log (get_run_attestations), null until it is sequenced; until the run finishes, " +
    "waiting: the poll interval, or events/subscribe to be woken. Yours, or on a Problem you manage.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.solving,
  apiRoute: "/api/verifications/:id",
  apiRouteByHand: true,
  output: getVerificationResult,
  input: getVerificationInput,
  async run({ services, principal, baseUrl }, input) {
    const verification = await getVerification(
      services.sql,
      viewerOf(principal),
      input.verification_run_id,
      baseUrl,
      services.clock(),
    );
    return {
      verification,
      waiting_stages: await readWaitingStages(services.sql, verification.id),
      // The run's newest signed attestation in the transparency log; null until it is sequenced.
      attestation_log_index: await latestLogIndex(services.sql, verification.id),
      // Until it finishes: how to wait for it without calling in a tight loop.
      ...(verification.status !== RunStatus.finished && { waiting: runWaiting }),
    };
  },
});

const listVerificationsTool = defineTool({
  name: "list_verifications",
  title: "List verification runs",
  description:
    "Verification runs you can read, newest first: narrow by submission_id, attempt_id or problem (id or slug). " +
    "Pages of up to 100 with a cursor.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.workbench,
  apiRoute: "/api/verifications",
  input: z.strictObject({
    submission_id: submissionId.optional(),
    attempt_id: z.string().regex(idPattern(IdPrefix.attempt), "must be an Attempt id (att_...)").optional(),
    problem: z.string().min(1).max(64).optional().describe("A Problem id or slug."),
    limit: z.number().int().min(1).max(100).default(20).describe("Page size, 1 to 100 (default 20)."),
    cursor: pageCursor,
    working_attempt_id: workingAttemptId,
  }),
  async run({ services, principal, baseUrl }, input) {
    return {
      ...(await listVerifications(services.sql, viewerOf(principal), input, baseUrl, services.clock())),
    };
  },
});

const rerunVerificationTool = defineTool({
  name: "rerun_verification",
  title: "Rerun a verification",
  description:
    "Verifies an active Submission again as a new run (trigger rerun), with the stage implementations current now. " +
    "The submitter, the Problem's owner or an administrator; consumes no submission quota.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.maintenance,
  input: z.strictObject({ submission_id: submissionId }),
  async run({ services, principal }, input) {
    return { ...(await rerunVerification(services.sql, viewerOf(principal), input.submission_id)) };
  },
});

const revokeVerificationTool = defineTool({
  name: "revoke_verification",
  title: "Revoke a verification run",
  description:
    "Administrators: records that a finished run's mechanism did not match its Contract. Write-once and permanent; " +
    "the run keeps its result but stops counting toward the verdict.",
  scope: "contribute",
  kind: ToolKind.destructive,
  toolset: Toolset.administration,
  role: Role.administrator,
  input: z.strictObject({ verification_run_id: verificationRunId, reason_md: reasonMd }),
  async run({ services, principal }, input) {
    return { ...(await revokeVerification(services, viewerOf(principal), input)) };
  },
});

const yankVerifierImplementationTool = defineTool({
  name: "yank_verifier_implementation",
  title: "Yank a verifier implementation",
  description:
    "Its publisher or an administrator withdraws a VerifierImplementation, once, with a reason: it runs nothing new, " +
    "the stage's current implementation is recomputed (highest non-yanked version whose conformance passed), and runs " +
    "waiting on the stage say so. Runs it already ran keep their result (revoke_implementation_runs revokes them).",
  scope: "contribute",
  kind: ToolKind.destructive,
  toolset: Toolset.maintenance,
  input: z.strictObject({ verifier_implementation_id: verifierImplementationId, reason_md: reasonMd }),
  async run({ services, principal }, input) {
    return { ...(await yankVerifierImplementation(services, viewerOf(principal), input)) };
  },
});

const revokeImplementationRunsTool = defineTool({
  name: "revoke_implementation_runs",
  title: "Revoke every run of an implementation",
  description:
    "Operators (administrators): an implementation found not matching its Contract has every finished run one of whose " +
    "stages it ran revoked, in one action with one reason. Write-once per run: runs already revoked keep theirs; " +
    "revoked runs keep their result and stop counting toward the verdict. Lists unfinished runs to revoke later. " +
    "Yank the implementation (yank_verifier_implementation) so it runs nothing new.",
  scope: "contribute",
  kind: ToolKind.destructive,
  toolset: Toolset.administration,
  role: Role.administrator,
  input: z.strictObject({ verifier_implementation_id: verifierImplementationId, reason_md: reasonMd }),
  async run({ services, principal }, input) {
    return { ...(await revokeImplementationRuns(services, viewerOf(principal), input)) };
  },
});

const startManualVerificationTool = defineTool({
  name: "start_manual_verification",
  title: "Start a manual verification run",
  description:
    "Operators (administrators): verifies any active Submission again as a new run (trigger manual) with the stage " +
    "implementations current now, say after a yank or a revocation; consumes no submission quota.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.maintenance,
  input: z.strictObject({ submission_id: submissionId }),
  async run({ services, principal }, input) {
    return { ...(await startManualVerification(services.sql, viewerOf(principal), input.submission_id)) };
  },
});

const redactStageLogTool = defineTool({
  name: "redact_stage_log",
  title: "Redact a stage log",
  description:
    "Operators (administrators): replaces the bytes of one stage's captured log, once, for secret_material, " +
    "personal_data or legal_requirement. The log keeps the original content_hash and size_bytes in its redaction " +
    "record and serves a short notice from then on; the original bytes leave the blob store once no record holds " +
    "them. Inputs, artifact hashes, results and evidence_md are never redactable.",
  scope: "contribute",
  kind: ToolKind.destructive,
  toolset: Toolset.administration,
  role: Role.administrator,
  input: z.strictObject({
    verification_run_id: verificationRunId,
    stage_key: z
      .string()
      .regex(
        /^[a-z0-9]+(_[a-z0-9]+)*$/,
        "must be a stage key: lowercase letters and digits joined by single _",
      )
      .max(40, "must be at most 40 characters")
      .describe("The stage whose log to redact."),
    reason: redactionReason,
  }),
  async run({ services, principal }, input) {
    return { ...(await redactStageLog(services, viewerOf(principal), input)) };
  },
});

/** The verification tools, registered in tools.ts. */
export const verificationTools: readonly Tool[] = [
  getVerificationTool,
  listVerificationsTool,
  rerunVerificationTool,
  revokeVerificationTool,
  yankVerifierImplementationTool,
  revokeImplementationRunsTool,
  startManualVerificationTool,
  redactStageLogTool,
] as Tool[];

const verificationResource: ResourceTemplate = {
  name: "verification-run",
  uriTemplate: "svc://verifications/{verification_run_id}",
  title: "Verification run",
  description: "A VerificationRun as JSON (the record get_verification returns).",
  async read(context, uri, variables) {
    const run = await getVerification(
      context.services.sql,
      viewerOf(context.principal),
      variables.verification_run_id ?? "",
      context.baseUrl,
      context.services.clock(),
    );
    return [resourceJson(uri, run)];
  },
};

const stageLogResource: ResourceTemplate = {
  name: "verification-stage-log",
  uriTemplate: "svc://verifications/{verification_run_id}/stages/{stage_key}/log",
  title: "Verification stage log",
  description:
    "The captured stdout and stderr of one sandbox stage, cut at the capture ceiling (log.truncated).",
  async read(context, uri, variables) {
    const { log, bytes } = await readStageLog(
      context.services,
      viewerOf(context.principal),
      variables.verification_run_id ?? "",
      variables.stage_key ?? "",
    );
    return [
      resourceBytes(uri, bytes, "text/plain", {
        content_hash: log.content_hash,
        size_bytes: log.size_bytes,
        truncated: log.truncated,
        redaction: log.redaction,
      }),
    ];
  },
};

const stageEvidenceResource: ResourceTemplate = {
  name: "verification-stage-evidence",
  uriTemplate: "svc://verifications/{verification_run_id}/stages/{stage_key}/evidence",
  title: "Verification stage evidence",
  description:
    "The files a sandbox stage's checker left under /output/evidence: path, content_hash, size_bytes, link_target for a symbolic link, and url (the bytes over HTTP), with evidence_hash, their tree digest.",
  async read(context, uri, variables) {
    const runId = variables.verification_run_id ?? "";
    const stageKey = variables.stage_key ?? "";
    const evidence = await readStageEvidence(context.services, viewerOf(context.principal), runId, stageKey);
    return [resourceJson(uri, evidenceListing(context.baseUrl, runId, stageKey, evidence))];
  },
};

/** The verification resource templates, registered in tools.ts. */
export const verificationResources: readonly ResourceTemplate[] = [
  verificationResource,
  stageLogResource,
  stageEvidenceResource,
];

import {
  type CheckerJob,
  type CheckerOutcome,
  type ContentHash,
  checkerImplementation,
  type InputFile,
  type StageResult,
  stageBindings,
  stageJob,
  truncateEvidence,
} from "@svc/app";
import type { ContractStage } from "@svc/schemas";
import type { Services } from "../core/services/services.ts";
import { readBlobBytes } from "../downloads/read-blob-bytes.ts";
import { currentImplementationForRun, type RunnableImplementation } from "./current-implementation.ts";
import { resolveBinding } from "./resolve-binding.ts";
import type { RunContext } from "./run-context.ts";
import type { StageLog, StageMechanism } from "./stage-record.ts";

/** A stage's end, as the stage result row records it. */
export interface FinishedStageOutcome {
  kind: "finished";
  result: StageResult;
  score: number | null;
  evidence_md: string;
  /** Null for a stage that never ran a mechanism (stage-record.ts). */
  mechanism: StageMechanism | null;
  log: StageLog | null;
  /** Evidence files in the blob store; a symlink keeps its target string and no bytes. */
  evidence_files: Array<{ path: string; content_hash: string; size_bytes: number; link_target?: string }>;
}

/** The stage cannot start yet (an image provisioning, fixtures pending); try again later. */
export interface WaitingStageOutcome {
  kind: "wait";
  reason: string;
}

export type StageOutcome = FinishedStageOutcome | WaitingStageOutcome;

/**
 * Runs one sandbox stage of a run: the stage's current implementation on the Submission's
 * artifacts and the revision's selected, stored reference inputs (linked slots are never
 * mounted), through the backend the image resolves to. The log and evidence files go to the
 * blob store. A stage the service cannot execute here is `inconclusive`; a failed image
 * provisioning is `error` (spec 3).
 */
export async function runSandboxStage(
  services: Services,
  context: RunContext,
  stage: ContractStage,
  /** Marks the stage running with its mechanism: called just before the checker runs, never while it waits. */
  start: (mechanism: StageMechanism) => Promise<void>,
): Promise<StageOutcome> {
  const { current, pending } = await currentImplementationForRun(
    services.sql,
    context.verifier_contract_id,
    stage.key,
  );
  const engines = await services.sandbox.engines();
  if (!current) {
    if (pending) {
      // Its fixtures cannot run before its image can: a failed image is the service's error, an
      // image this deployment cannot run makes the stage one it cannot execute.
      const image = await resolveBinding(services.sql, engines, pending.runtime.image_ref);
      if (image.kind === "failed") return notRun("error", image.reason);
      if (image.kind === "unbound") return notRun("inconclusive", image.reason);
      return {
        kind: "wait",
        reason:
          image.kind === "wait"
            ? image.reason
            : `stage ${stage.key}'s implementation is still running its conformance fixtures`,
      };
    }
    return notRun(
      "inconclusive",
      `stage \`${stage.key}\` has no implementation whose conformance fixtures passed, so the service cannot execute it${await lastYank(services, context, stage.key)}`,
    );
  }
  const resolution = await resolveBinding(services.sql, engines, current.runtime.image_ref);
  if (resolution.kind === "wait") return { kind: "wait", reason: resolution.reason };
  if (resolution.kind === "unbound") return notRun("inconclusive", resolution.reason);
  if (resolution.kind === "failed") return notRun("error", resolution.reason);

  const job = await checkerJob(services, context, stage, current);
  await start({
    sandbox: {
      verifier_implementation_id: current.id,
      implementation_content_hash: current.content_hash,
      runtime_image_digest: current.runtime.image_digest,
      runtime_bytes_digest: resolution.binding?.bytes_digest ?? null,
      backend: resolution.binding?.backend ?? "builtin",
      exit_code: null,
      duration_ms: null,
      evidence_hash: null,
    },
    review: null,
    external: null,
  });
  // Evidence goes to the blob store file by file as the host reads it from the run's disk.
  const outcome = await services.sandbox.run(
    job,
    resolution.binding,
    { user_id: context.user_id },
    (source) => services.blobs.put(source),
  );
  return await recordOutcome(services, current, outcome, resolution.binding?.bytes_digest ?? null);
}

/** Says which yank left the stage without an implementation, when one did (the run records why). */
async function lastYank(services: Services, context: RunContext, stageKey: string): Promise<string> {
  const [yanked] = await services.sql<
    { id: string; version_number: number; yank_reason_md: string | null }[]
  >`
    select id, version_number, yank_reason_md from verifier_implementations
    where verifier_contract_id = ${context.verifier_contract_id} and stage_key = ${stageKey} and yanked_at is not null
    order by yanked_at desc, version_number desc limit 1`;
  if (!yanked) return "";
  return `; implementation ${yanked.id} (version ${yanked.version_number}) was yanked: ${yanked.yank_reason_md ?? "no reason recorded"}`;
}

function notRun(result: StageResult, reason: string): FinishedStageOutcome {
  return {
    kind: "finished",
    result,
    score: null,
    evidence_md: reason,
    mechanism: null,
    log: null,
    evidence_files: [],
  };
}

/**
 * The stage's job by the shared rules (`stageJob`, `stageBindings`): the Submission's artifacts,
 * the stored reference inputs of the slots the stage selects (linked slots hold no bytes the
 * service could mount, spec 2.3), and the implementation record with its program's bytes.
 */
async function checkerJob(
  services: Services,
  context: RunContext,
  stage: ContractStage,
  implementation: RunnableImplementation,
): Promise<CheckerJob> {
  const reference: InputFile[] = [];
  for (const binding of stageBindings(context.contract, stage, context.bindings).mounted) {
    reference.push({
      name: binding.key,
      filename: binding.filename ?? binding.key,
      media_type: binding.media_type,
      content_hash: binding.content_hash as ContentHash,
      size_bytes: binding.size_bytes,
      bytes: await readBlobBytes(services.blobs, binding.content_hash),
    });
  }
  const artifacts: InputFile[] = [];
  for (const artifact of context.artifacts) {
    artifacts.push({
      name: artifact.role,
      filename: artifact.filename,
      media_type: artifact.media_type,
      content_hash: artifact.content_hash as ContentHash,
      size_bytes: artifact.size_bytes,
      bytes: await readBlobBytes(services.blobs, artifact.content_hash),
    });
  }
  const program = implementation.program
    ? await readBlobBytes(services.blobs, implementation.program.content_hash)
    : null;
  return stageJob(context.contract, stage, checkerImplementation(implementation, program), {
    artifacts,
    reference,
  });
}

async function recordOutcome(
  services: Services,
  implementation: RunnableImplementation,
  outcome: CheckerOutcome,
  /** The ChainID of the image bytes the checker ran on; null for builtins and the host's interpreter. */
  bytesDigest: string | null,
): Promise<FinishedStageOutcome> {
  const stored = await services.blobs.put(outcome.log.bytes);
  const evidence_files = [];
  for (const file of outcome.evidence) {
    const put =
      file.content_hash !== undefined && file.size_bytes !== undefined
        ? { content_hash: file.content_hash, size_bytes: file.size_bytes }
        : await services.blobs.put(file.bytes);
    evidence_files.push(
      file.link_target === undefined
        ? { path: file.path, ...put }
        : { path: file.path, ...put, link_target: file.link_target },
    );
  }
  return {
    kind: "finished",
    result: outcome.result,
    score: outcome.result === "verified" ? outcome.score : null,
    evidence_md: stageEvidence(outcome),
    mechanism: {
      sandbox: {
        verifier_implementation_id: implementation.id,
        implementation_content_hash: implementation.content_hash,
        runtime_image_digest: implementation.runtime.image_digest,
        runtime_bytes_digest: bytesDigest,
        backend: outcome.backend,
        exit_code: outcome.exit_code,
        duration_ms: outcome.duration_ms,
        evidence_hash: outcome.evidence_hash,
      },
      review: null,
      external: null,
    },
    log: {
      content_hash: stored.content_hash,
      size_bytes: stored.size_bytes,
      truncated: outcome.log.truncated,
      redaction: null,
    },
    evidence_files,
  };
}

/** The checker's summary, then the service's reason (a limit, a malformed result) when it has one. */
function stageEvidence(outcome: CheckerOutcome): string {
  const parts = [outcome.summary];
  if (outcome.reason && outcome.reason !== outcome.summary) parts.push(outcome.reason);
  if (outcome.limit) parts.push(`Limit reached: ${outcome.limit}.`);
  return truncateEvidence(parts.filter((part) => part !== "").join("\n\n"));
}

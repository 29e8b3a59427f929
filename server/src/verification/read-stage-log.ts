import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { readBlobBytes } from "../downloads/read-blob-bytes.ts";
import { readRunWithholding } from "../sealing/read-run-withholdings.ts";
import { isStageEvidenceWithheld } from "../sealing/run-withholding.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { readableRunSql } from "./readable-run-sql.ts";
import type { StageLog } from "./stage-record.ts";

/**
 * A file a checker left under /output/evidence, as stored: a symlink keeps its target and no
 * bytes. An external stage's one file is the evidence its partner attached (attest_external_stage).
 */
export interface EvidenceFile {
  /** Relative to /output/evidence, `/`-separated; bytes that are not UTF-8 escaped (docs/sandbox.md). */
  path: string;
  content_hash: string;
  size_bytes: number;
  link_target?: string;
}

/** What a sandbox stage left besides its result: its captured log and its evidence files. */
interface StageOutputs {
  log: StageLog | null;
  evidence_files: EvidenceFile[];
  evidence_hash: string | null;
}

/**
 * The outputs of one stage of a run the viewer may read (not_found otherwise), the one home of
 * the rule for logs and evidence alike: a protected stage's outputs on a sealed evaluation are
 * `withheld` from all but the Problem's managers until label release, since a checker's output
 * may quote the sealed input it read. `what` names the output in messages.
 */
async function readStageOutputs(
  services: Services,
  viewer: Viewer,
  runId: string,
  stageKey: string,
  what: "log" | "evidence",
): Promise<StageOutputs> {
  const { sql } = services;
  const [row] = await sql<(StageOutputs & { problem_revision_id: string })[]>`
    select st.log, st.evidence_files,
      coalesce(st.mechanism -> 'sandbox' ->> 'evidence_hash', st.mechanism -> 'external' ->> 'evidence_hash') as evidence_hash,
      r.problem_revision_id
    from verification_stage_results st join verification_runs r on r.id = st.verification_run_id
    where r.id = ${runId} and st.stage_key = ${stageKey} and ${readableRunSql(sql, viewer)}`;
  if (!row || (what === "log" && !row.log)) {
    throw new ServiceError(
      "not_found",
      `run "${runId}" has no ${what === "log" ? "captured log" : "sandbox or external stage"} for a stage "${stageKey}" that you can read`,
      { verification_run_id: runId, stage_key: stageKey },
    );
  }
  const withholding = await readRunWithholding(
    sql,
    { viewer, now: services.clock() },
    row.problem_revision_id,
  );
  if (isStageEvidenceWithheld(withholding, stageKey)) {
    throw new ServiceError(
      "withheld",
      `the ${what} of stage "${stageKey}" is withheld until ${withholding.evidenceReleaseAt}: the stage reads sealed inputs, and only the problem's managers see its output before they are released`,
      { verification_run_id: runId, stage_key: stageKey, withheld_until: withholding.evidenceReleaseAt },
    );
  }
  return row;
}

/** The captured output of one sandbox stage (readStageOutputs says who may read it). */
export async function readStageLog(
  services: Services,
  viewer: Viewer,
  runId: string,
  stageKey: string,
): Promise<{ log: StageLog; bytes: Buffer }> {
  const { log } = await readStageOutputs(services, viewer, runId, stageKey, "log");
  return { log: log!, bytes: await readBlobBytes(services.blobs, log!.content_hash) };
}

/** The evidence files of one stage, sorted by path, with the tree digest over them (or null when none). */
export async function readStageEvidence(
  services: Services,
  viewer: Viewer,
  runId: string,
  stageKey: string,
): Promise<{ evidence_hash: string | null; files: EvidenceFile[] }> {
  const outputs = await readStageOutputs(services, viewer, runId, stageKey, "evidence");
  const files = [...outputs.evidence_files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { evidence_hash: outputs.evidence_hash, files };
}

/** One evidence file's bytes; not_found for a path the stage did not leave, or a symlink (it has no bytes). */
export async function readStageEvidenceFile(
  services: Services,
  viewer: Viewer,
  runId: string,
  stageKey: string,
  path: string,
): Promise<{ file: EvidenceFile; bytes: Buffer }> {
  const { files } = await readStageEvidence(services, viewer, runId, stageKey);
  const file = files.find((f) => f.path === path);
  if (!file || file.link_target !== undefined) {
    throw new ServiceError(
      "not_found",
      file
        ? `evidence "${path}" of stage "${stageKey}" is a symbolic link (to ${file.link_target}); it has no bytes`
        : `stage "${stageKey}" of run "${runId}" left no evidence file "${path}": list them at /verifications/${runId}/stages/${stageKey}/evidence`,
      { verification_run_id: runId, stage_key: stageKey, path },
    );
  }
  return { file, bytes: await readBlobBytes(services.blobs, file.content_hash) };
}

import { randomBytes } from "node:crypto";
import {
  type Commitment,
  commitmentOf,
  hashJson,
  type Opening,
  RUN_PREDICATE_TYPE,
  type RunPredicate,
  type RunPredicateStage,
  type RunStatement,
  STATEMENT_TYPE,
  sha256,
} from "@svc/app";
import type { Sql } from "../core/db/connect-sql.ts";
import type { ReferenceBinding } from "../problems/problem-revision.ts";
import { readRunWithholdings } from "../sealing/read-run-withholdings.ts";
import {
  isStageEvidenceWithheld,
  isStageResultWithheld,
  type RunWithholding,
} from "../sealing/run-withholding.ts";
import type { StageLog, StageMechanism } from "../verification/stage-record.ts";

/** One queued reason to attest a run. */
export interface AttestationRequest {
  verification_run_id: string;
  reason: RunPredicate["reason"];
}

/** The attestation a run's Statement follows, when there is one. */
export interface EarlierAttestation {
  log_index: number;
  payload_sha256: string;
}

/** A Statement ready to sign, and the openings of the commitments standing in for withheld values. */
export interface BuiltStatement {
  statement: RunStatement;
  openings: Record<string, Opening> | null;
}

interface RunFacts {
  id: string;
  submission_id: string;
  attempt_id: string;
  problem_id: string;
  problem_revision_id: string;
  revision_number: number;
  sealed: boolean;
  verifier_contract_id: string;
  contract_hash: string;
  trigger: string;
  inputs: { artifacts: Array<{ role: string; artifact_id: string; content_hash: string }> };
  result: string | null;
  score: number | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  revocation: { revoked_at: string; reason_md: string } | null;
  verifier_input_bindings: ReferenceBinding[];
}

interface StageFacts {
  verification_run_id: string;
  stage_key: string;
  kind: RunPredicateStage["kind"];
  result: string | null;
  score: number | null;
  mechanism: StageMechanism | null;
  log: StageLog | null;
  runtime_bytes_digest: string | null;
  review_outcome: string | null;
  review_end_reason: string | null;
  review_finished_at: Date | null;
}

/**
 * The Statements of a batch of queued runs, read in three queries. What sealed work withholds
 * from a participant now (spec 2.4: final-only outcomes until score release, protected evidence
 * and the reference inputs until label release) appears only as a salted commitment, so an
 * attestation a participant reads leaks nothing; its opening is kept and served once released.
 */
export async function buildRunStatements(
  sql: Sql,
  requests: readonly AttestationRequest[],
  earlier: ReadonlyMap<string, EarlierAttestation>,
  now: Date,
): Promise<BuiltStatement[]> {
  const ids = [...new Set(requests.map((request) => request.verification_run_id))];
  const runs = await sql<RunFacts[]>`
    select r.id, r.submission_id, s.attempt_id, pr.problem_id, r.problem_revision_id, pr.revision_number,
      pr.sealing is not null as sealed, r.verifier_contract_id, vc.content_hash as contract_hash, r.trigger, r.inputs,
      r.result, r.score, r.created_at, r.started_at, r.finished_at, r.revocation, pr.verifier_input_bindings
    from verification_runs r
    join submissions s on s.id = r.submission_id
    join problem_revisions pr on pr.id = r.problem_revision_id
    join verifier_contracts vc on vc.id = r.verifier_contract_id
    where r.id = any(${ids})`;
  const stages = await sql<StageFacts[]>`
    select st.verification_run_id, st.stage_key, st.kind, st.result, st.score, st.mechanism, st.log,
      st.mechanism -> 'sandbox' ->> 'runtime_bytes_digest' as runtime_bytes_digest,
      rp.outcome as review_outcome, rp.end_reason as review_end_reason, rp.finished_at as review_finished_at
    from verification_stage_results st
    left join review_processes rp on rp.verification_run_id = st.verification_run_id and rp.stage_key = st.stage_key
    where st.verification_run_id = any(${ids}) and st.mechanism is not null
    order by st.verification_run_id, st.position`;
  // Withheld as from anyone who does not manage the Problem, at the time of attesting.
  const withholdings = await readRunWithholdings(
    sql,
    { viewer: { userId: "", isAdministrator: false }, now },
    runs.map((run) => run.problem_revision_id),
  );
  const runById = new Map(runs.map((run) => [run.id, run]));
  return requests.map((request) => {
    const run = runById.get(request.verification_run_id);
    if (!run) throw new Error(`queued run ${request.verification_run_id} is missing`);
    const withholding = withholdings.get(run.problem_revision_id)!;
    return buildStatement(
      run,
      stages.filter((stage) => stage.verification_run_id === run.id && hasMember(stage.mechanism)),
      request.reason,
      earlier.get(request.verification_run_id) ?? null,
      withholding,
      now,
    );
  });
}

function hasMember(mechanism: StageMechanism | null): boolean {
  return mechanism !== null && (mechanism.sandbox ?? mechanism.review ?? mechanism.external) !== null;
}

function buildStatement(
  run: RunFacts,
  stages: StageFacts[],
  reason: RunPredicate["reason"],
  supersedes: EarlierAttestation | null,
  withholding: RunWithholding,
  now: Date,
): BuiltStatement {
  const openings: Record<string, Opening> = {};
  /** The value, or a commitment to it when `hide`, its opening kept under `pointer`. */
  const shown = <T>(pointer: string, value: T, hide: boolean): T | Commitment => {
    if (!hide) return value;
    const nonce = randomBytes(32);
    openings[pointer] = { nonce: nonce.toString("base64"), value };
    return { commitment: commitmentOf(nonce, value) };
  };
  const hideInputs = run.sealed && (withholding.outcome || withholding.protectedEvidence);
  const predicate: RunPredicate = {
    reason,
    supersedes,
    issued_at: now.toISOString(),
    run: {
      verification_run_id: run.id,
      submission_id: run.submission_id,
      attempt_id: run.attempt_id,
      trigger: run.trigger,
      result: shown("/run/result", run.result, withholding.outcome),
      score: shown("/run/score", run.score, withholding.outcome),
      created_at: run.created_at.toISOString(),
      started_at: run.started_at?.toISOString() ?? null,
      finished_at: run.finished_at?.toISOString() ?? null,
      revocation: run.revocation && {
        revoked_at: run.revocation.revoked_at,
        reason_sha256: sha256(run.revocation.reason_md),
      },
    },
    problem: {
      problem_id: run.problem_id,
      problem_revision_id: run.problem_revision_id,
      revision_number: run.revision_number,
      sealed: run.sealed,
    },
    verifier_contract: { verifier_contract_id: run.verifier_contract_id, content_hash: run.contract_hash },
    reference_inputs: run.verifier_input_bindings.map((binding, i) => ({
      key: binding.key,
      content_hash: shown(`/reference_inputs/${i}/content_hash`, binding.content_hash, hideInputs),
      size_bytes: shown(`/reference_inputs/${i}/size_bytes`, binding.size_bytes, hideInputs),
    })),
    stages: stages.map((stage, i) => {
      const hideResult = isStageResultWithheld(withholding, stage.stage_key) || withholding.outcome;
      const hideEvidence = isStageEvidenceWithheld(withholding, stage.stage_key);
      const at = `/stages/${i}`;
      const { sandbox, review, external } = stage.mechanism!;
      return {
        stage_key: stage.stage_key,
        kind: stage.kind,
        result: shown(`${at}/result`, stage.result, hideResult),
        score: shown(`${at}/score`, stage.score, hideResult),
        sandbox: sandbox && {
          verifier_implementation_id: sandbox.verifier_implementation_id,
          implementation_content_hash: sandbox.implementation_content_hash,
          runtime_image_digest: sandbox.runtime_image_digest,
          runtime_bytes_digest: stage.runtime_bytes_digest,
          backend: sandbox.backend,
          exit_code: shown(`${at}/sandbox/exit_code`, sandbox.exit_code, hideEvidence),
          evidence_hash: shown(`${at}/sandbox/evidence_hash`, sandbox.evidence_hash, hideEvidence),
        },
        review: review && {
          review_process_id: review.review_process_id,
          protocol_hash: review.protocol_hash,
          outcome: shown(`${at}/review/outcome`, stage.review_outcome, hideResult),
          reduction_sha256: shown(
            `${at}/review/reduction_sha256`,
            hashJson({
              review_process_id: review.review_process_id,
              protocol_hash: review.protocol_hash,
              outcome: stage.review_outcome,
              end_reason: stage.review_end_reason,
              finished_at: stage.review_finished_at?.toISOString() ?? null,
            }),
            hideResult,
          ),
        },
        external: external && {
          system: external.system,
          reference: external.reference,
          rule_owner: external.rule_owner,
          evidence_hash: external.evidence_hash,
          attested_by_user_id: external.attested_by_user_id,
          attested_at: external.attested_at,
        },
        log: stage.log && {
          content_hash: shown(`${at}/log/content_hash`, stage.log.content_hash, hideEvidence),
          redacted: stage.log.redaction !== null,
        },
      };
    }),
  };
  const artifacts = run.inputs.artifacts;
  const statement: RunStatement = {
    _type: STATEMENT_TYPE,
    subject:
      artifacts.length > 0
        ? artifacts.map((artifact) => ({
            name: `${artifact.role}/${artifact.artifact_id}`,
            digest: { sha256: artifact.content_hash.replace(/^sha256:/, "") },
          }))
        : [{ name: `submission/${run.submission_id}`, digest: { sha256: hashJson(run.inputs).slice(7) } }],
    predicateType: RUN_PREDICATE_TYPE,
    predicate,
  };
  return { statement, openings: Object.keys(openings).length > 0 ? openings : null };
}

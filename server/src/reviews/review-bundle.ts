import type {
  Assistance,
  HiddenItem,
  NodeType,
  ProtocolNode,
  ReduceOutcome,
  Rubric,
  SkillRequirement,
} from "@svc/schemas";
import { ServiceError } from "../core/errors/service-error.ts";
import type { BundleMaterial } from "../core/services/hosted-reviewer.ts";
import type { Services } from "../core/services/services.ts";
import { readRunWithholding } from "../sealing/read-run-withholdings.ts";
import {
  isStageEvidenceWithheld,
  isStageResultWithheld,
  NOTHING_WITHHELD,
  withholdingNotice,
} from "../sealing/run-withholding.ts";
import { blobMaterial, textMaterial } from "./bundle-material.ts";
import { readAssignmentRows, readNodeRows } from "./read-process-rows.ts";
import type { Reduction } from "./reduction.ts";
import type { ReviewAssignmentRow, ReviewNodeRow, ReviewProcessRow } from "./review-records.ts";

/**
 * What a reviewer of one node gets (spec 2.1 visibility, 4.1 bundles), already blinded: the
 * subject (the submitter and their Organization unless hidden), the rubric, the Submission's
 * artifacts by reference (small text inlined), the outputs of the node's `prior_nodes` only,
 * earlier Contract stage evidence only when `stage_evidence`, the Attempt's notes unless hidden,
 * and the skills supplied. Independence: nothing from any assignment of this node. Sealed
 * reference inputs are never part of a bundle.
 */
export interface ReviewBundle {
  review_process_id: string;
  node_id: string;
  node_title: string | null;
  protocol_hash: string;
  subject: BundleSubject;
  rubric: Rubric;
  /** Human nodes: the assistance a reviewer must or may declare; null otherwise. */
  assistance: Assistance | null;
  /** The Submission's artifacts, then earlier stage evidence, then prior node outputs. */
  materials: BundleMaterial[];
  prior_nodes: PriorNodeOutput[];
  /** Null when the node does not show stage evidence (or no run started the process). */
  stage_evidence: StageEvidence[] | null;
  /** Null when hidden, or when the subject has no Attempt. */
  attempt_notes: BundleNote[] | null;
  skills: BundleSkill[];
  /** The node's `visibility.hidden` items: what this bundle leaves out on purpose. */
  hidden: HiddenItem[];
}

export interface BundleSubject {
  kind: ReviewProcessRow["subject_kind"];
  /** The Submission's `sub_` id (or the proposal's id). */
  id: string;
  problem: { id: string; slug: string; title: string } | null;
  problem_revision_id: string | null;
  statement_md: string | null;
  /** Null when `submitter_identity` is hidden. */
  submitter: { user_id: string; handle: string } | null;
  /** Null when `submitter_organization` is hidden or the work is attributed to none. */
  organization: { id: string; slug: string; name: string } | null;
}

/** A prior node's output as a reviewer may read it. */
export type PriorNodeOutput =
  | {
      node_id: string;
      type: "reduce";
      status: "completed";
      outcome: ReduceOutcome;
      reduction: Reduction | null;
    }
  | { node_id: string; type: "review"; status: "completed"; judgments: PriorJudgment[] }
  | { node_id: string; type: NodeType; status: "skipped"; skip_reason: string | null };

/** A completed review of a prior node; reviewers are not named. Scores drop with `prior_scores` hidden. */
export interface PriorJudgment {
  response: Record<string, unknown>;
  rationale_md: string | null;
  citations: unknown;
  confidence?: number | null;
}

export interface StageEvidence {
  stage_key: string;
  kind: string;
  result: string | null;
  /** Absent when `prior_scores` is hidden. */
  score?: number | null;
  evidence_md: string;
}

export interface BundleNote {
  id: string;
  kind: string;
  body_md: string;
  created_at: string;
}

export interface BundleSkill {
  skill_version_id: string;
  requirement: SkillRequirement;
  name: string | null;
  description: string | null;
  resource_uri: string;
}

/** Builds the bundle of `nodeId` of `process`; not_found when the node is not a review node. */
export async function buildReviewBundle(
  services: Services,
  process: ReviewProcessRow,
  nodeId: string,
): Promise<ReviewBundle> {
  const node = process.protocol_snapshot.nodes.find((candidate) => candidate.id === nodeId);
  if (node?.type !== "review" || !node.rubric || !node.visibility) {
    throw new ServiceError("not_found", `review process ${process.id} has no review node "${nodeId}"`, {
      field: "node_id",
      review_process_id: process.id,
      node_id: nodeId,
    });
  }
  const hidden = node.visibility.hidden;
  const subject = await readSubject(services, process, hidden);
  const materials: BundleMaterial[] = [...subject.materials];
  const stageEvidence = node.visibility.stage_evidence
    ? await readStageEvidence(services, process, hidden)
    : null;
  for (const stage of stageEvidence ?? []) {
    materials.push(
      serviceText(
        "stage_evidence",
        stage.stage_key,
        `stage ${stage.stage_key}: ${stage.result}\n\n${stage.evidence_md}`,
      ),
    );
  }
  const priorNodes = await readPriorNodes(services, process, node, hidden);
  for (const prior of priorNodes) {
    materials.push(serviceText("prior_node", prior.node_id, JSON.stringify(prior, null, 2)));
  }
  return {
    review_process_id: process.id,
    node_id: node.id,
    node_title: node.title,
    protocol_hash: process.protocol_hash,
    subject: subject.subject,
    rubric: node.rubric,
    assistance: node.reviewers?.kind === "human" ? (node.reviewers.assistance ?? null) : null,
    materials,
    prior_nodes: priorNodes,
    stage_evidence: stageEvidence,
    attempt_notes: hidden.includes("attempt_notes") ? null : subject.notes,
    skills: await readSkills(services, node),
    hidden,
  };
}

function serviceText(kind: BundleMaterial["kind"], key: string, text: string): BundleMaterial {
  return textMaterial(
    { kind, key, filename: null, media_type: "text/markdown", content_hash: null, resource_uri: null },
    text,
  );
}

async function readSubject(
  services: Services,
  process: ReviewProcessRow,
  hidden: HiddenItem[],
): Promise<{ subject: BundleSubject; materials: BundleMaterial[]; notes: BundleNote[] | null }> {
  const { sql } = services;
  const [problem] = process.problem_id
    ? await sql<{ id: string; slug: string; title: string }[]>`
        select id, slug, title from problems where id = ${process.problem_id}`
    : [];
  const [revision] = process.problem_revision_id
    ? await sql<{ statement_md: string }[]>`
        select statement_md from problem_revisions where id = ${process.problem_revision_id}`
    : [];
  const [submitter] = hidden.includes("submitter_identity")
    ? []
    : await sql<{ user_id: string; handle: string }[]>`
        select id as user_id, handle from users where id = ${process.subject_user_id}`;
  const [organization] =
    hidden.includes("submitter_organization") || !process.subject_organization_id
      ? []
      : await sql<{ id: string; slug: string; name: string }[]>`
          select id, slug, name from organizations where id = ${process.subject_organization_id}`;
  const subject: BundleSubject = {
    kind: process.subject_kind,
    id: process.subject_id,
    problem: problem ?? null,
    problem_revision_id: process.problem_revision_id,
    statement_md: revision?.statement_md ?? null,
    submitter: submitter ?? null,
    organization: organization ?? null,
  };
  if (process.subject_kind !== "submission") return { subject, materials: [], notes: null };
  const artifacts = await sql<
    {
      id: string;
      role: string;
      filename: string;
      media_type: string;
      size_bytes: string;
      content_hash: string;
      withdrawn_at: Date | null;
    }[]
  >`
    select a.id, entry.value ->> 'role' as role, a.filename, a.media_type, a.size_bytes, a.content_hash, a.withdrawn_at
    from submissions s
    cross join lateral jsonb_array_elements(s.artifacts) with ordinality as entry(value, ord)
    join artifacts a on a.id = entry.value ->> 'artifact_id'
    where s.id = ${process.subject_id}
    order by entry.ord`;
  const materials: Array<Promise<BundleMaterial>> = [];
  for (const artifact of artifacts) {
    const base = {
      kind: "artifact" as const,
      key: artifact.role,
      filename: artifact.filename,
      media_type: artifact.media_type,
      content_hash: artifact.content_hash,
      resource_uri: `svc://artifacts/${artifact.id}`,
    };
    if (artifact.withdrawn_at !== null) {
      materials.push(
        Promise.resolve({
          ...base,
          size_bytes: Number(artifact.size_bytes),
          truncated: true,
          omitted_reason: "the artifact was withdrawn; its bytes are no longer served",
        }),
      );
      continue;
    }
    materials.push(blobMaterial(services.blobs, { ...base, size_bytes: Number(artifact.size_bytes) }));
  }
  const notes = await sql<{ id: string; kind: string; body_md: string; created_at: Date }[]>`
    select n.id, n.kind, n.body_md, n.created_at from notes n
    join submissions s on s.attempt_id = n.attempt_id
    where s.id = ${process.subject_id} and n.user_id = s.user_id
    order by n.created_at, n.id`;
  return {
    subject,
    materials: await Promise.all(materials),
    notes: notes.map((note) => ({ ...note, created_at: note.created_at.toISOString() })),
  };
}

/** Finished stages before the one that started the process; never logs, never the score when hidden. */
async function readStageEvidence(
  services: Services,
  process: ReviewProcessRow,
  hidden: HiddenItem[],
): Promise<StageEvidence[] | null> {
  if (!process.verification_run_id || !process.stage_key) return null;
  const rows = await services.sql<
    { stage_key: string; kind: string; result: string | null; score: number | null; evidence_md: string }[]
  >`
    select st.stage_key, st.kind, st.result, st.score, st.evidence_md
    from verification_stage_results st
    where st.verification_run_id = ${process.verification_run_id} and st.status = 'finished'
      and st.position < (select position from verification_stage_results
                         where verification_run_id = ${process.verification_run_id} and stage_key = ${process.stage_key})
    order by st.position`;
  // Reviewers are never the Problem's managers in this respect: a bundle shows every reviewer
  // what a participant may see of a sealed evaluation's protected stages (spec 2.4).
  const withholding = process.problem_revision_id
    ? await readRunWithholding(
        services.sql,
        { viewer: BUNDLE_READER, now: services.clock() },
        process.problem_revision_id,
      )
    : NOTHING_WITHHELD;
  const withScores = !hidden.includes("prior_scores");
  return rows.map(({ score, ...stage }) => {
    const resultWithheld = isStageResultWithheld(withholding, stage.stage_key);
    const shown = {
      ...stage,
      result: resultWithheld ? null : stage.result,
      evidence_md: isStageEvidenceWithheld(withholding, stage.stage_key)
        ? withholdingNotice("Evidence of this protected stage", withholding.evidenceReleaseAt)
        : stage.evidence_md,
    };
    return withScores ? { ...shown, score: resultWithheld ? null : score } : shown;
  });
}

/** Who a bundle is built for: any reviewer, with no manager rights over the Problem. */
const BUNDLE_READER = { userId: "", isAdministrator: false };

/** The outputs of the node's `prior_nodes`: completed ones in full, skipped ones by reason. */
async function readPriorNodes(
  services: Services,
  process: ReviewProcessRow,
  node: ProtocolNode,
  hidden: HiddenItem[],
): Promise<PriorNodeOutput[]> {
  const priorIds = node.visibility?.prior_nodes ?? [];
  if (priorIds.length === 0) return [];
  const rows = new Map((await readNodeRows(services.sql, process.id)).map((row) => [row.node_id, row]));
  const assignments = await readAssignmentRows(services.sql, process.id);
  const withScores = !hidden.includes("prior_scores");
  const outputs: PriorNodeOutput[] = [];
  for (const priorId of priorIds) {
    const row = rows.get(priorId);
    if (!row) continue;
    if (row.status === "skipped") {
      outputs.push({ node_id: priorId, type: row.type, status: "skipped", skip_reason: row.skip_reason });
    } else if (row.status === "completed" && row.type === "reduce" && row.outcome) {
      outputs.push({
        node_id: priorId,
        type: "reduce",
        status: "completed",
        outcome: row.outcome,
        reduction: withScores ? row.reduction : null,
      });
    } else if (row.status === "completed" && row.type === "review") {
      outputs.push({
        node_id: priorId,
        type: "review",
        status: "completed",
        judgments: judgmentsOf(row, assignments, withScores),
      });
    }
  }
  return outputs;
}

function judgmentsOf(
  node: ReviewNodeRow,
  assignments: ReviewAssignmentRow[],
  withScores: boolean,
): PriorJudgment[] {
  return assignments
    .filter((a) => a.node_id === node.node_id && a.status === "submitted" && a.response !== null)
    .sort((a, b) => a.ended_at!.getTime() - b.ended_at!.getTime() || (a.id < b.id ? -1 : 1))
    .map((a) => {
      const judgment = { response: a.response!, rationale_md: a.rationale_md, citations: a.citations ?? [] };
      if (withScores) return { ...judgment, confidence: a.confidence };
      // Blind to prior scores: numbers in the structured response go with the confidence.
      const response = Object.fromEntries(
        Object.entries(a.response!).filter(([, value]) => typeof value !== "number"),
      );
      return { ...judgment, response };
    });
}

async function readSkills(services: Services, node: ProtocolNode): Promise<BundleSkill[]> {
  const refs = node.skills ?? [];
  if (refs.length === 0) return [];
  const rows = await services.sql<{ id: string; name: string; description: string }[]>`
    select id, name, description from skill_versions where id = any(${refs.map((ref) => ref.skill_version_id)})`;
  const byId = new Map(rows.map((row) => [row.id, row]));
  return refs.map((ref) => ({
    skill_version_id: ref.skill_version_id,
    requirement: ref.requirement,
    name: byId.get(ref.skill_version_id)?.name ?? null,
    description: byId.get(ref.skill_version_id)?.description ?? null,
    resource_uri: `svc://skill-versions/${ref.skill_version_id}/`,
  }));
}

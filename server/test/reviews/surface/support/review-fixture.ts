import { IdPrefix, type Visibility } from "@svc/schemas";
import { randomId } from "../../../../src/core/ids/random-id.ts";
import type { Services } from "../../../../src/core/services/services.ts";
import { startReviewProcess } from "../../../../src/reviews/start-review-process.ts";
import { seedProblem, seedProtocol } from "../../../support/seed-records.ts";

/**
 * Review processes written straight into the tables, as the engine lays them out, so the read
 * paths can be tested without the engine's claims and timers: a Submission on a fresh Problem, a
 * process started on it, nodes opened and assignments inserted by hand at chosen times.
 */

/** The rubric of the fixture's review nodes: a verdict, a rationale required, no citations. */
export function fixtureNode(
  id: string,
  options: {
    count?: number;
    hidden?: string[];
    eligibility?: Record<string, unknown>;
    instructions?: string;
    title?: string | null;
  } = {},
): Record<string, unknown> {
  return {
    id,
    type: "review",
    title: options.title ?? "Readers",
    when: null,
    reviewers: {
      kind: "human",
      count: options.count ?? 2,
      independent: true,
      eligibility: { rule: "any_participant", organization_id: null, user_ids: null, ...options.eligibility },
      allowed: null,
      assistance: null,
    },
    visibility: { prior_nodes: [], stage_evidence: false, hidden: options.hidden ?? ["submitter_identity"] },
    conflicts: null,
    skills: null,
    rubric: {
      instructions_md: options.instructions ?? "Accept the essay when its argument holds.",
      response_schema: {
        type: "object",
        properties: { verdict: { enum: ["accept", "reject"] } },
        required: ["verdict"],
      },
      rationale: "required",
      citations: { min_items: 0 },
      confidence: "optional",
    },
    inputs: null,
    op: null,
    config: null,
  };
}

/** A protocol document: the given review nodes, each reduced by a k_of_n, coalesced into `decision`. */
export function fixtureProtocol(reviewNodes: Array<Record<string, unknown>>): Record<string, unknown> {
  const reducers = reviewNodes.map((node) => ({
    id: `${node.id as string}_k`,
    type: "reduce",
    title: null,
    when: null,
    reviewers: null,
    visibility: null,
    conflicts: null,
    skills: null,
    rubric: null,
    inputs: [node.id],
    op: "k_of_n",
    config: {
      field: "verdict",
      accept: { predicate: { op: "eq", value: "accept" }, k: (node.reviewers as { count: number }).count },
      reject: { predicate: { op: "eq", value: "reject" }, k: 1 },
    },
  }));
  const output = {
    id: "decision",
    type: "reduce",
    title: null,
    when: null,
    reviewers: null,
    visibility: null,
    conflicts: null,
    skills: null,
    rubric: null,
    inputs: reducers.map((r) => r.id),
    op: "coalesce",
    config: {},
  };
  return {
    version: "svc.review/v0.1",
    purpose: "acceptance",
    title: "Fixture review",
    subject_kind: "submission",
    nodes: [...reviewNodes, ...reducers, output],
    output: "decision",
    policy: { assignment_timeout_hours: 72, claim_hold_minutes: 120 },
  };
}

/** What a seeded review holds. */
export interface SeededReview {
  processId: string;
  problemId: string;
  problemSlug: string;
  submissionId: string;
  artifactId: string;
  artifactText: string;
}

/**
 * A Problem of `owner`, a Submission of `submitter` with one text artifact, and a process over it.
 * With `organization` (an `org_` id) the Attempt is attributed to it, and so is the process, as
 * the verification run's review stage records it.
 */
export async function seedReview(
  services: Services,
  options: {
    owner: string;
    submitter: string;
    slug: string;
    protocol: Record<string, unknown>;
    now: Date;
    organization?: string;
    /** The Problem's own visibility (default listed), and the Campaign it belongs to, if any. */
    visibility?: Visibility;
    campaignId?: string;
  },
): Promise<SeededReview> {
  const { sql, blobs } = services;
  const problem = await seedProblem(services, {
    owner: options.owner,
    slug: options.slug,
    visibility: options.visibility ?? "listed",
    campaignId: options.campaignId ?? null,
  });
  const protocolId = await seedProtocol(sql, options.owner, `${options.slug}-protocol`, options.protocol);
  const artifactText = `The essay of ${options.slug}.`;
  const stored = await blobs.put(Buffer.from(artifactText));
  const attemptId = randomId(IdPrefix.attempt);
  const artifactId = randomId(IdPrefix.artifact);
  const submissionId = randomId(IdPrefix.submission);
  await sql`
    insert into attempts (id, problem_id, problem_revision_id, user_id, organization_id)
    values (${attemptId}, ${problem.problemId}, ${problem.revisionId}, ${options.submitter}, ${options.organization ?? null})`;
  await sql`
    insert into artifacts (id, attempt_id, user_id, filename, media_type, content_hash, size_bytes)
    values (${artifactId}, ${attemptId}, ${options.submitter}, 'essay.md', 'text/markdown',
      ${stored.content_hash}, ${stored.size_bytes})`;
  await sql`
    insert into submissions (id, attempt_id, user_id, problem_id, problem_revision_id, artifacts)
    values (${submissionId}, ${attemptId}, ${options.submitter}, ${problem.problemId}, ${problem.revisionId},
      ${sql.json([{ role: "essay", artifact_id: artifactId, content_hash: stored.content_hash, size_bytes: stored.size_bytes }])})`;
  const processId = await startReviewProcess(sql, options.now, {
    review_protocol_id: protocolId,
    subject_kind: "submission",
    subject_id: submissionId,
    subject_user_id: options.submitter,
    subject_organization_id: options.organization ?? null,
    problem_id: problem.problemId,
    problem_revision_id: problem.revisionId,
    campaign_id: options.campaignId ?? null,
  });
  return {
    processId,
    problemId: problem.problemId,
    problemSlug: options.slug,
    submissionId,
    artifactId,
    artifactText,
  };
}

/** Opens a review node at `now` with a 72-hour deadline, as the engine does. */
export async function openNode(
  services: Services,
  processId: string,
  nodeId: string,
  now: Date,
): Promise<void> {
  await services.sql`
    update review_nodes set status = 'open', opened_at = ${now},
      deadline_at = ${new Date(now.getTime() + 72 * 3600_000)}
    where review_process_id = ${processId} and node_id = ${nodeId}`;
}

/** An assignment of `userId` on a node, claimed at `now` with a 120-minute hold; submitted when a verdict is given. */
export async function insertAssignment(
  services: Services,
  options: {
    processId: string;
    nodeId: string;
    userId: string;
    now: Date;
    verdict?: "accept" | "reject";
    rationale?: string;
  },
): Promise<string> {
  const id = randomId(IdPrefix.reviewAssignment);
  const submitted = options.verdict !== undefined;
  await services.sql`
    insert into review_assignments (id, review_process_id, node_id, reviewer_kind, reviewer_user_id, status,
      claimed_at, hold_until, ended_at, response, rationale_md, citations, confidence)
    values (${id}, ${options.processId}, ${options.nodeId}, 'human', ${options.userId},
      ${submitted ? "submitted" : "claimed"}, ${options.now}, ${new Date(options.now.getTime() + 120 * 60_000)},
      ${submitted ? options.now : null}, ${submitted ? services.sql.json({ verdict: options.verdict! }) : null},
      ${submitted ? (options.rationale ?? `Because ${options.verdict}.`) : null},
      ${submitted ? services.sql.json([]) : null}, ${submitted ? 0.8 : null})`;
  return id;
}

/** Marks a review node completed at `now` (the engine would, once every seat is submitted). */
export async function completeNode(
  services: Services,
  processId: string,
  nodeId: string,
  now: Date,
): Promise<void> {
  await services.sql`
    update review_nodes set status = 'completed', completed_at = ${now}
    where review_process_id = ${processId} and node_id = ${nodeId}`;
}

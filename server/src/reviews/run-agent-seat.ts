import type { ProtocolNode } from "@svc/schemas";
import type { HostedReviewRequest } from "../core/services/hosted-reviewer.ts";
import type { Services } from "../core/services/services.ts";
import { readBlobBytes } from "../downloads/read-blob-bytes.ts";
import { advanceReviewProcess } from "./advance-review-process.ts";
import { textMaterial } from "./bundle-material.ts";
import { checkReviewResponse } from "./check-review-response.ts";
import { readAssignmentRow, readProcessRow } from "./read-process-rows.ts";
import { buildReviewBundle } from "./review-bundle.ts";
import type { ReviewAssignmentRow, ReviewProcessRow } from "./review-records.ts";
import { storeJudgment } from "./store-judgment.ts";

/** Replies an agent seat may get (failed calls and refused replies alike) before it lapses. */
export const MAX_AGENT_ATTEMPTS = 3;

/**
 * Fills one agent assignment: builds the node's bundle, asks the hosted agent through
 * `services.hostedReviewers`, checks the reply against the rubric like a human's, and stores it.
 * A failed call or a refused reply counts an attempt on the assignment (`agent_attempts`, the
 * reason in `agent_last_error`) and is retried with the problems named, up to MAX_AGENT_ATTEMPTS;
 * then the assignment lapses and its seat stays open until the node's deadline. Runs outside any
 * transaction (a provider call can take minutes); a worker dying mid-way resumes from the
 * attempts counted. Does nothing once the assignment or its process has ended.
 */
export async function runAgentSeat(services: Services, assignmentId: string): Promise<void> {
  const assignment = await readAssignmentRow(services.sql, assignmentId);
  if (assignment?.status !== "claimed" || assignment.agent === null) return;
  const process = await readProcessRow(services.sql, assignment.review_process_id);
  if (!process || process.status === "finished") return;
  const node = process.protocol_snapshot.nodes.find((candidate) => candidate.id === assignment.node_id)!;
  const request = await agentRequest(services, process, node, assignment);
  let problems: string[] = [];
  for (let attempt = assignment.agent_attempts; attempt < MAX_AGENT_ATTEMPTS; attempt++) {
    try {
      const reply = await services.hostedReviewers.review({ ...request, previous_problems: problems });
      const refused = checkReviewResponse(node, reply);
      if (refused.length === 0) {
        const stored = await services.sql.begin(async (tx) => {
          const locked = await readProcessRow(tx, process.id, { lock: true });
          const now = services.clock();
          const [row] = await tx<{ deadline_at: Date | null }[]>`
            select deadline_at from review_nodes where review_process_id = ${process.id} and node_id = ${node.id}`;
          // Past the deadline the seat counts as unfilled, for agents as for people.
          if (locked?.status !== "open" || (row?.deadline_at && row.deadline_at.getTime() <= now.getTime()))
            return null;
          return await storeJudgment(tx, assignmentId, reply, now);
        });
        if (!stored)
          services.log.info(
            { assignment_id: assignmentId },
            "agent reply arrived after its process or deadline ended",
          );
        await advanceReviewProcess(services, process.id);
        return;
      }
      problems = refused.map((problem) => `${problem.path || "(reply)"}: ${problem.message}`);
    } catch (error) {
      problems = [`the call failed: ${(error as Error).message}`];
    }
    const ended = attempt + 1 >= MAX_AGENT_ATTEMPTS;
    const [still] = await services.sql`
      update review_assignments
      set agent_attempts = ${attempt + 1}, agent_last_error = ${problems.join("; ").slice(0, 4000)},
        status = ${ended ? "lapsed" : "claimed"}, ended_at = ${ended ? services.clock() : null}
      where id = ${assignmentId} and status = 'claimed'
      returning id`;
    if (!still) return;
    services.log.warn(
      { assignment_id: assignmentId, attempt: attempt + 1, problems },
      "hosted reviewer reply refused",
    );
  }
  await advanceReviewProcess(services, process.id);
}

/** The bundle as an agent receives it: the statement first, then the bundle's materials, and the skills' text. */
async function agentRequest(
  services: Services,
  process: ReviewProcessRow,
  node: ProtocolNode,
  assignment: ReviewAssignmentRow,
): Promise<Omit<HostedReviewRequest, "previous_problems">> {
  const bundle = await buildReviewBundle(services, process, node.id);
  const statement = bundle.subject.statement_md
    ? [
        textMaterial(
          {
            kind: "statement",
            key: "statement",
            filename: null,
            media_type: "text/markdown",
            content_hash: null,
            resource_uri: null,
          },
          bundle.subject.statement_md,
        ),
      ]
    : [];
  return {
    agent: assignment.agent!,
    node_title: bundle.node_title,
    rubric: bundle.rubric,
    materials: [...statement, ...bundle.materials],
    skills: await skillTexts(services, assignment.skills_supplied),
  };
}

async function skillTexts(
  services: Services,
  supplied: ReviewAssignmentRow["skills_supplied"],
): Promise<HostedReviewRequest["skills"]> {
  const skills: HostedReviewRequest["skills"] = [];
  for (const ref of supplied) {
    const [version] = await services.sql<{ files: Array<{ path: string; content_hash: string }> }[]>`
      select files from skill_versions where id = ${ref.skill_version_id}`;
    const file = version?.files.find((candidate) => candidate.path === "SKILL.md");
    if (!file) continue;
    const bytes = await readBlobBytes(services.blobs, file.content_hash);
    skills.push({ ...ref, content_md: bytes.toString("utf8") });
  }
  return skills;
}

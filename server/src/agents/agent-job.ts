import { IdPrefix, idPatternSource } from "@svc/schemas";
import { ServiceError } from "../core/errors/service-error.ts";

/** A job id taken apart. */
export type AgentJobRef =
  | { kind: "review_seat"; review_process_id: string; node_id: string }
  | { kind: "solve"; problem_id: string }
  | { kind: "continuation"; attempt_id: string };

const REVIEW_SEAT = new RegExp(
  `^review_seat:(${idPatternSource(IdPrefix.reviewProcess)}):([A-Za-z0-9_-]{1,64})$`,
);
const SOLVE = new RegExp(`^solve:(${idPatternSource(IdPrefix.problem)})$`);
const CONTINUATION = new RegExp(`^continuation:(${idPatternSource(IdPrefix.attempt)})$`);

/** The job id of a seat, a want's Problem or an Attempt to continue. */
export function agentJobId(ref: AgentJobRef): string {
  switch (ref.kind) {
    case "review_seat":
      return `review_seat:${ref.review_process_id}:${ref.node_id}`;
    case "solve":
      return `solve:${ref.problem_id}`;
    case "continuation":
      return `continuation:${ref.attempt_id}`;
  }
}

/** A job id as list_agent_jobs gave it; invalid_input naming `job_id` otherwise. */
export function parseAgentJobId(jobId: string): AgentJobRef {
  const seat = REVIEW_SEAT.exec(jobId);
  if (seat) return { kind: "review_seat", review_process_id: seat[1]!, node_id: seat[2]! };
  const solve = SOLVE.exec(jobId);
  if (solve) return { kind: "solve", problem_id: solve[1]! };
  const continuation = CONTINUATION.exec(jobId);
  if (continuation) return { kind: "continuation", attempt_id: continuation[1]! };
  throw new ServiceError(
    "invalid_input",
    "job_id must be one list_agent_jobs returned: review_seat:<rpr_...>:<node_id>, solve:<prb_...> or continuation:<att_...>",
    { field: "job_id" },
  );
}

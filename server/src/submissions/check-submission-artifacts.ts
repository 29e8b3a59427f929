import type { ArtifactRow } from "../artifacts/artifact.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { SubmissionArtifact } from "./submission.ts";
import type { ContractTerms } from "./submission-requirements.ts";

/** One artifact binding of a create_submission call, with the Artifact it names already loaded. */
export interface Binding {
  role: string;
  artifact: Pick<ArtifactRow, "id" | "media_type" | "content_hash" | "size_bytes">;
}

/** One way the bindings miss the requirements: the field (JSON path into the input) and what to fix. */
export interface RequirementProblem {
  field: string;
  message: string;
}

export type SubmissionCheck =
  | { ok: true; artifacts: SubmissionArtifact[] }
  | { ok: false; problems: RequirementProblem[] };

/**
 * Checks a Submission's role bindings against the pinned Contract, a pure function (spec 2.5):
 * every required role bound exactly once, no unknown role, each Artifact's media type among the
 * role's `media_types` (parameters such as `; charset=utf-8` ignored) and its size at most the
 * role's `max_bytes`. `accepts_text_only: true` also admits a Submission binding no Artifact at
 * all (the answer is the Attempt's text, per `answer_format_md`); any binding given is checked in
 * full. Without a Contract nothing is checked but that roles are distinct and at least one
 * Artifact is bound. The result lists the artifacts in the Contract's role order.
 */
export function checkSubmissionArtifacts(terms: ContractTerms | null, bindings: Binding[]): SubmissionCheck {
  const problems: RequirementProblem[] = [];
  const seen = new Map<string, number>();
  bindings.forEach((binding, index) => {
    const first = seen.get(binding.role);
    if (first !== undefined) {
      problems.push({
        field: `artifacts.${index}.role`,
        message: `role "${binding.role}" is bound twice (also at artifacts.${first}): bind each role exactly once`,
      });
    } else seen.set(binding.role, index);
  });
  const record = (binding: Binding): SubmissionArtifact => ({
    role: binding.role,
    artifact_id: binding.artifact.id,
    content_hash: binding.artifact.content_hash,
    size_bytes: Number(binding.artifact.size_bytes),
  });
  if (terms === null) {
    if (bindings.length === 0) {
      problems.push({ field: "artifacts", message: "bind at least one artifact: {role, artifact_id}" });
    }
    return problems.length > 0 ? { ok: false, problems } : { ok: true, artifacts: bindings.map(record) };
  }
  const roles = terms.requirements.required_artifacts;
  const textOnly = terms.requirements.accepts_text_only && bindings.length === 0;
  bindings.forEach((binding, index) => {
    const role = roles.find((r) => r.role === binding.role);
    if (!role) {
      const known = roles.map((r) => `"${r.role}"`).join(", ") || "none";
      problems.push({
        field: `artifacts.${index}.role`,
        message: `role "${binding.role}" is not one the contract declares (roles: ${known})`,
      });
      return;
    }
    const mediaType = binding.artifact.media_type.split(";")[0]!.trim().toLowerCase();
    if (!role.media_types.some((allowed) => allowed.toLowerCase() === mediaType)) {
      problems.push({
        field: `artifacts.${index}.artifact_id`,
        message: `artifact ${binding.artifact.id} is ${binding.artifact.media_type}; role "${role.role}" takes ${role.media_types.join(" or ")}: upload it again with a matching media_type or file extension`,
      });
    }
    const size = Number(binding.artifact.size_bytes);
    if (size > role.max_bytes) {
      problems.push({
        field: `artifacts.${index}.artifact_id`,
        message: `artifact ${binding.artifact.id} is ${size} bytes; role "${role.role}" takes at most ${role.max_bytes}`,
      });
    }
  });
  if (!textOnly) {
    for (const role of roles) {
      if (!seen.has(role.role)) {
        problems.push({
          field: "artifacts",
          message: `required role "${role.role}" is not bound (${role.media_types.join(" or ")}, at most ${role.max_bytes} bytes: ${role.description})`,
        });
      }
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const order = (role: string) => roles.findIndex((r) => r.role === role);
  return { ok: true, artifacts: [...bindings].sort((a, b) => order(a.role) - order(b.role)).map(record) };
}

/** The refusal of bindings that miss the requirements, every problem named. */
export function requirementsUnmet(problems: RequirementProblem[]): ServiceError {
  return new ServiceError(
    "requirements_unmet",
    `the artifacts do not meet the contract's submission requirements: ${problems.map((p) => `${p.field}: ${p.message}`).join("; ")}`,
    { problems },
  );
}

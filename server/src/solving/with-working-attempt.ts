import type { ReferenceResourceEntry } from "../problems/reference-resource-entries.ts";
import type { SkillResourceEntry } from "../skills/skill-resource-entries.ts";

/** A resource URI carrying the Attempt it is read for (spec 4.1: the trailing parameter counts). */
export function uriForAttempt(uri: string, attemptId: string): string {
  return `${uri}${uri.includes("?") ? "&" : "?"}working_attempt_id=${attemptId}`;
}

/**
 * get_problem's two resource lists with every `svc://` URI carrying `?working_attempt_id=<att>`,
 * as start_attempt returns them (spec 4.1). Signed download links are untouched: they name one
 * immutable target and need no Attempt.
 */
export function withWorkingAttempt(
  lists: { skill_resources: SkillResourceEntry[]; reference_resources: ReferenceResourceEntry[] },
  attemptId: string,
): { skill_resources: SkillResourceEntry[]; reference_resources: ReferenceResourceEntry[] } {
  return {
    skill_resources: lists.skill_resources.map((entry) => ({
      ...entry,
      entry_uri: uriForAttempt(entry.entry_uri, attemptId),
      manifest_uri: uriForAttempt(entry.manifest_uri, attemptId),
      files: entry.files.map((file) => ({
        ...file,
        resource_uri: uriForAttempt(file.resource_uri, attemptId),
      })),
    })),
    reference_resources: lists.reference_resources.map((entry) =>
      entry.resource_uri === undefined
        ? entry
        : { ...entry, resource_uri: uriForAttempt(entry.resource_uri, attemptId) },
    ),
  };
}

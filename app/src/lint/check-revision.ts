import type { SkillRequirement } from "@svc/schemas";
import { type ProblemFile, validateOwned } from "@svc/schemas";
import type { Binding } from "./check-bindings.ts";
import type { LintContext } from "./lint-context.ts";

/** Placeholders for the ids and times the service assigns: the pattern is what pass 6 checks. */
const PLACEHOLDER = {
  revision: "prv_0000000000",
  problem: "prb_0000000000",
  contract: "vct_0000000000",
  skill: "skv_0000000000",
  user: "usr_0000000000",
  time: "2000-01-01T00:00:00Z",
} as const;

/**
 * Lint pass 6: the ProblemRevision the service would create, assembled from the files and checked
 * against the ProblemRevision schema, so nothing the earlier passes allowed can fail at publish.
 */
export function checkRevision(
  ctx: LintContext,
  prefix: string,
  input: {
    problem: ProblemFile;
    statementMd: string;
    hasContract: boolean;
    bindings: Binding[];
    localSkillCount: number;
  },
): void {
  const { problem } = input;
  const revision = {
    id: PLACEHOLDER.revision,
    problem_id: PLACEHOLDER.problem,
    revision_number: 1,
    statement_md: input.statementMd,
    context_md: null,
    benchmark: problem.benchmark ?? null,
    verifier_contract_id: input.hasContract ? (problem.verifier_contract ?? PLACEHOLDER.contract) : null,
    verifier_input_bindings: input.bindings.map((b) => ({
      key: b.key,
      content_hash: b.content_hash,
      size_bytes: b.size_bytes,
      media_type: b.media_type,
      filename: b.filename,
      ...(b.url === null ? {} : { url: b.url }),
    })),
    ...(problem.sealing
      ? { sealing: { ...problem.sealing, unsealed_at: null, release_event: null, evaluation_id: null } }
      : {}),
    skill_refs: [
      ...Array.from({ length: input.localSkillCount }, () => ({
        skill_version_id: PLACEHOLDER.skill,
        requirement: "required",
      })),
      ...publishedSkills(problem),
    ],
    changelog_md: null,
    created_by_user_id: PLACEHOLDER.user,
    created_at: PLACEHOLDER.time,
  };
  for (const issue of validateOwned("problem-revision", revision)) {
    const [file, path] = locate(prefix, issue.path, input.bindings);
    ctx.error(file, path, "schema_violation", `the assembled revision is invalid: ${issue.message}`);
  }
}

/** problem.json `skills` items, normalised to {skill_version_id, requirement}. */
export function publishedSkills(
  problem: ProblemFile,
): Array<{ skill_version_id: string; requirement: SkillRequirement }> {
  return (problem.skills ?? []).map((item) =>
    typeof item === "string" ? { skill_version_id: item, requirement: "required" as const } : item,
  );
}

/** Maps a pointer into the assembled revision back to the file an author would edit. */
function locate(prefix: string, path: string, bindings: Binding[]): [string, string] {
  if (path.startsWith("/statement_md")) return [`${prefix}statement.md`, ""];
  const binding = /^\/verifier_input_bindings\/(\d+)/.exec(path);
  if (binding) {
    const b = bindings[Number(binding[1])];
    if (b) return [b.file, ""];
  }
  if (path.startsWith("/benchmark") || path.startsWith("/sealing")) return [`${prefix}problem.json`, path];
  return [`${prefix}problem.json`, ""];
}

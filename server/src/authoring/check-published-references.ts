import type { Plan, ValidationError } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { contractFile, problemFile } from "./package-files.ts";

/**
 * Published ids a package pins (a problem's `verifier_contract` and `skills`, a contract stage's
 * `rpt_` protocol, a protocol node's `skv_` skill) must name records that exist: lint cannot know,
 * having no server, so validation checks them and reports each unknown one as `not_found`.
 */
export async function checkPublishedReferences(
  sql: Sql,
  plan: Plan,
  has: (path: string) => boolean,
): Promise<ValidationError[]> {
  const wanted: Array<{ id: string; file: string; path: string; what: string }> = [];
  for (const problem of plan.problems) {
    const file = problemFile(problem.dir, "problem.json");
    if (problem.published_verifier_contract) {
      wanted.push({
        id: problem.published_verifier_contract,
        file,
        path: "/verifier_contract",
        what: "verifier contract",
      });
    }
    for (const [i, ref] of problem.published_skills.entries()) {
      wanted.push({ id: ref.skill_version_id, file, path: `/skills/${i}`, what: "skill version" });
    }
  }
  for (const [hash, { document }] of Object.entries(plan.verifier_contracts)) {
    for (const [i, stage] of document.stages.entries()) {
      if (stage.review_protocol_id?.startsWith("rpt_")) {
        const file = contractFile(plan, hash, has);
        wanted.push({
          id: stage.review_protocol_id,
          file,
          path: `/stages/${i}/review_protocol_id`,
          what: "review protocol",
        });
      }
    }
  }
  for (const { document } of Object.values(plan.review_protocols)) {
    for (const [n, node] of document.nodes.entries()) {
      for (const [s, ref] of (node.skills ?? []).entries()) {
        if (ref.skill_version_id.startsWith("skv_")) {
          // The protocol's file is not in the plan; any problem pinning it sits beside or under it.
          const dir = plan.problems.find((p) => p.review_protocol !== null)?.dir ?? ".";
          const file = has(problemFile(dir, "review-protocol.json"))
            ? problemFile(dir, "review-protocol.json")
            : "review-protocol.json";
          wanted.push({
            id: ref.skill_version_id,
            file,
            path: `/nodes/${n}/skills/${s}/skill_version_id`,
            what: "skill version",
          });
        }
      }
    }
  }
  if (wanted.length === 0) return [];
  const ids = [...new Set(wanted.map((w) => w.id))];
  const found = await sql<{ id: string }[]>`
    select id from verifier_contracts where id = any(${ids})
    union all select id from skill_versions where id = any(${ids})
    union all select id from review_protocols where id = any(${ids})`;
  const known = new Set(found.map((f) => f.id));
  return wanted
    .filter((w) => !known.has(w.id))
    .map((w) => ({
      file: w.file,
      path: w.path,
      code: "not_found",
      message: `no published ${w.what} has the id ${w.id}: pin an id the service returned when it was published`,
    }));
}

import { Capability, Scope } from "@svc/schemas";
import type { Services } from "../core/services/services.ts";
import type { Principal } from "../users/principal.ts";
import { requireCapability } from "../users/require-capability.ts";
import { requireScope } from "../users/require-scope.ts";
import { recordWorkAudit } from "../work/record-work-audit.ts";
import { findOwnedWork } from "./find-owned-work.ts";

export interface ArchivedProblem {
  problem: { problem_id: string; slug: string; status: "archived"; archived_at: string };
}

/**
 * archive_problem (spec 4.1): the owner, holding the author capability now, archives a Problem for
 * good: it takes no new Attempts and no new revisions (its slug is a conflict in later packages).
 * Archiving an archived Problem changes nothing and returns it as it is.
 */
export async function archiveProblem(
  services: Services,
  principal: Principal,
  input: { problem: string },
): Promise<ArchivedProblem> {
  requireScope(principal, Scope.contribute);
  const userId = principal.user.id;
  await requireCapability(services.sql, userId, Capability.author);
  return await services.sql.begin(async (tx) => {
    const problem = await findOwnedWork(tx, "problem", input.problem, userId);
    const at = problem.archived_at ?? services.clock();
    if (!problem.archived_at) {
      await tx`update problems set status = 'archived', archived_at = ${at}, updated_at = ${at} where id = ${problem.id}`;
      await recordWorkAudit(
        tx,
        userId,
        null,
        [{ action: "archive", subject_kind: "problem", subject_id: problem.id }],
        at,
      );
    }
    return {
      problem: {
        problem_id: problem.id,
        slug: problem.slug,
        status: "archived",
        archived_at: at.toISOString(),
      },
    };
  });
}

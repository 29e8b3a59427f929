import type { Sql } from "../core/db/connect-sql.ts";
import type { ReferenceBinding } from "../problems/problem-revision.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { canManageWork } from "../visibility/work-access.ts";
import { type ProtectionContract, protectedStageKeys } from "./protected-stage-keys.ts";
import { readSealing } from "./read-sealing.ts";
import { NOTHING_WITHHELD, type RunWithholding, runWithholding } from "./run-withholding.ts";

/** Who reads and when: every read of runs, stage logs or Submission results takes one. */
export interface RunReader {
  viewer: Viewer;
  now: Date;
}

/**
 * What `reader` may not see of runs on each of `revisionIds` (spec 2.4): one entry per revision,
 * NOTHING_WITHHELD for unsealed revisions and for the Problem's managers.
 */
export async function readRunWithholdings(
  sql: Sql,
  reader: RunReader,
  revisionIds: readonly string[],
): Promise<Map<string, RunWithholding>> {
  const result = new Map<string, RunWithholding>();
  const ids = [...new Set(revisionIds)];
  if (ids.length === 0) return result;
  const rows = await sql<
    {
      id: string;
      sealing: Record<string, unknown> | null;
      verifier_contract_id: string | null;
      verifier_input_bindings: ReferenceBinding[];
      owner_user_id: string;
      document: ProtectionContract | null;
    }[]
  >`
    select pr.id, pr.sealing, pr.verifier_contract_id, pr.verifier_input_bindings, p.owner_user_id, vc.document
    from problem_revisions pr join problems p on p.id = pr.problem_id
    left join verifier_contracts vc on vc.id = pr.verifier_contract_id
    where pr.id = any(${ids})`;
  for (const row of rows) {
    if (row.sealing === null) {
      result.set(row.id, NOTHING_WITHHELD);
      continue;
    }
    const sealing = await readSealing(sql, row, row.owner_user_id);
    const stages = row.document ? protectedStageKeys(row.document) : new Set<string>();
    const manager = canManageWork(reader.viewer, { owner_user_id: row.owner_user_id });
    result.set(row.id, runWithholding(sealing, stages, manager, reader.now));
  }
  return result;
}

/** The withholding of one revision's runs. */
export async function readRunWithholding(
  sql: Sql,
  reader: RunReader,
  revisionId: string,
): Promise<RunWithholding> {
  return (await readRunWithholdings(sql, reader, [revisionId])).get(revisionId) ?? NOTHING_WITHHELD;
}

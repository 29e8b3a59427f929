import type postgres from "postgres";
import type { Sql } from "../core/db/connect-sql.ts";

/**
 * Spec 3: "automatic spare-compute dispatch needs a non-yanked, conformance-passed implementation
 * for every sandbox stage". True for a Problem (`p`) whose current revision's Contract has such an
 * implementation for each of its sandbox stages (a revision without a Contract has none to need),
 * so agents are never sent to solve work whose runs could not be checked. Solve and continuation
 * jobs are offered only on such Problems.
 */
export function dispatchableProblemSql(sql: Sql): postgres.Fragment {
  return sql`not exists (
    select 1 from problem_revisions r
      join verifier_contracts vc on vc.id = r.verifier_contract_id,
      jsonb_array_elements(vc.document -> 'stages') st
    where r.problem_id = p.id and r.revision_number = p.current_revision_number
      and st ->> 'kind' = 'sandbox'
      and not exists (select 1 from verifier_implementations vi
        where vi.verifier_contract_id = vc.id and vi.stage_key = st ->> 'key'
          and vi.yanked_at is null and vi.conformance ->> 'status' = 'passed'))`;
}

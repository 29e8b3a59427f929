import { IdPrefix, idPattern } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { readableContractSql } from "../visibility/mechanism-visibility-sql.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { type ImplementationSummary, implementationSummaries } from "./implementation-summary.ts";
import { toVerifierContract, type VerifierContract, type VerifierContractRow } from "./verifier-contract.ts";

const CONTRACT_ID = idPattern(IdPrefix.verifierContract);

/**
 * get_verifier_contract: the Contract the viewer names by `vct_` id, when a revision they may
 * read pins it (or they published it), with a summary of its implementations; not_found otherwise.
 */
export async function getVerifierContract(
  sql: Sql,
  viewer: Viewer,
  id: string,
): Promise<{ verifier_contract: VerifierContract; implementations: ImplementationSummary[] }> {
  const [row] = CONTRACT_ID.test(id)
    ? await sql<VerifierContractRow[]>`
        select id, publisher_user_id, content_hash, document, created_at
        from verifier_contracts vc where vc.id = ${id} and ${readableContractSql(sql, viewer)}`
    : [];
  if (!row)
    throw new ServiceError("not_found", `no verifier contract has the id "${id}"`, {
      verifier_contract_id: id,
    });
  return {
    verifier_contract: toVerifierContract(row),
    implementations: await implementationSummaries(sql, row.id),
  };
}

import type { Sql } from "../core/db/connect-sql.ts";
import { toVerifierContract, type VerifierContract, type VerifierContractRow } from "./verifier-contract.ts";

/**
 * The Contract a revision pins. Whoever may read the revision may read what it pins (as with its
 * skills), so no further visibility check: call it only with a revision read under the caller's
 * visibility.
 */
export async function readPinnedContract(sql: Sql, contractId: string): Promise<VerifierContract | null> {
  const [row] = await sql<VerifierContractRow[]>`
    select id, publisher_user_id, content_hash, document, created_at from verifier_contracts where id = ${contractId}`;
  return row ? toVerifierContract(row) : null;
}

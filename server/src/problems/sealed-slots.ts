import type { Sql } from "../core/db/connect-sql.ts";

/** The keys of the reference slots a Contract declares sealed; empty without a Contract. */
export async function sealedSlots(sql: Sql, verifierContractId: string | null): Promise<Set<string>> {
  if (verifierContractId === null) return new Set();
  const rows = await sql<{ key: string }[]>`
    select slot->>'key' as key
    from verifier_contracts vc, jsonb_array_elements(vc.document->'reference_inputs') slot
    where vc.id = ${verifierContractId} and (slot->>'sealed')::boolean is true`;
  return new Set(rows.map((row) => row.key));
}

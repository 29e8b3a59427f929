import type { Sql } from "../core/db/connect-sql.ts";

/**
 * Sealed slot keys by Contract id. A Contract never changes (triggers refuse updates and deletes,
 * migration 002) and its id is random, so what was read once holds for the life of the process:
 * get_problem and every sealing read then skip a round trip. Bounded: cleared when full.
 */
const known = new Map<string, ReadonlySet<string>>();
const KNOWN_LIMIT = 10_000;

/** The keys of the reference slots a Contract declares sealed; empty without a Contract. */
export async function sealedSlots(sql: Sql, verifierContractId: string | null): Promise<ReadonlySet<string>> {
  if (verifierContractId === null) return new Set();
  const cached = known.get(verifierContractId);
  if (cached) return cached;
  // One row when the Contract exists (with no keys when nothing is sealed), none otherwise.
  const [row] = await sql<{ keys: string[] }[]>`
    select coalesce(array_agg(slot->>'key') filter (where (slot->>'sealed')::boolean is true), '{}') as keys
    from verifier_contracts vc
    left join lateral jsonb_array_elements(vc.document->'reference_inputs') slot on true
    where vc.id = ${verifierContractId}
    group by vc.id`;
  const slots: ReadonlySet<string> = new Set(row?.keys ?? []);
  if (row) {
    if (known.size >= KNOWN_LIMIT) known.clear();
    known.set(verifierContractId, slots);
  }
  return slots;
}

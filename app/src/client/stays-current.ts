import type { ValidationConformance } from "@svc/schemas";
import type { ServiceClient } from "./service-client.ts";

/** The implementation a stage keeps running while a newly published one failed its fixtures. */
export interface StaysCurrent {
  verifier_contract_id: string;
  verifier_implementation_id: string;
  version_number: number;
}

/** A failed fixture of a published checker, with what its stage runs instead (null: nothing). */
export type PublishedFailure = ValidationConformance & { stays_current: StaysCurrent | null };

interface SummaryRow {
  id: string;
  stage_key: string;
  version_number: number;
  content_hash: string;
  current: boolean;
}

/**
 * Asks the service (get_verifier_contract on each published contract) which implementation each
 * failed checker's stage keeps as current: a checker that fails its own fixtures never becomes
 * current (spec 2.2), so the stage runs the last one that passed, or waits when there is none.
 */
export async function staysCurrent(
  client: ServiceClient,
  contractIds: readonly string[],
  failures: readonly ValidationConformance[],
): Promise<PublishedFailure[]> {
  const contracts = await Promise.all(
    contractIds.map(async (id) => {
      const envelope = await client.callTool("get_verifier_contract", { verifier_contract_id: id });
      const rows = Array.isArray(envelope.implementations) ? (envelope.implementations as SummaryRow[]) : [];
      return { id, rows };
    }),
  );
  return failures.map((failure) => {
    const contract = contracts.find(({ rows }) =>
      rows.some((r) => r.content_hash === failure.implementation && r.stage_key === failure.stage_key),
    );
    const current = contract?.rows.find((r) => r.stage_key === failure.stage_key && r.current);
    return {
      ...failure,
      stays_current:
        contract && current
          ? {
              verifier_contract_id: contract.id,
              verifier_implementation_id: current.id,
              version_number: current.version_number,
            }
          : null,
    };
  });
}

import { IdPrefix, idPattern } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { readableContractSql } from "../visibility/mechanism-visibility-sql.ts";
import type { Viewer } from "../visibility/viewer.ts";

const IMPLEMENTATION_ID = idPattern(IdPrefix.verifierImplementation);

/**
 * The program of a script checker the viewer may read (its Contract is as visible as the
 * revisions that pin it): filename, content hash and size. not_found for an unknown or unreadable
 * implementation, and for one that runs an image rather than a program.
 */
export async function findImplementationProgram(
  sql: Sql,
  viewer: Viewer,
  id: string,
): Promise<{ filename: string; content_hash: string; size_bytes: number }> {
  const [row] = IMPLEMENTATION_ID.test(id)
    ? await sql<{ program: { filename: string; content_hash: string; size_bytes: number } | null }[]>`
        select vi.program from verifier_implementations vi join verifier_contracts vc on vc.id = vi.verifier_contract_id
        where vi.id = ${id} and ${readableContractSql(sql, viewer)}`
    : [];
  if (!row?.program) {
    throw new ServiceError(
      "not_found",
      `no script checker program you can read belongs to implementation "${id}"`,
      {
        verifier_implementation_id: id,
      },
    );
  }
  return row.program;
}

import { IdPrefix, idPattern } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ARTIFACT_COLUMNS, type ArtifactRow } from "./artifact.ts";

const ARTIFACT_ID = idPattern(IdPrefix.artifact);

/** The Artifact with this id whoever owns it, or null; `lock` locks the row for the transaction. */
export async function findArtifact(
  sql: Sql,
  id: string,
  options: { lock?: boolean } = {},
): Promise<ArtifactRow | null> {
  if (!ARTIFACT_ID.test(id)) return null;
  const [row] = await sql<ArtifactRow[]>`
    select ${sql.unsafe(ARTIFACT_COLUMNS)} from artifacts r where r.id = ${id}
    ${options.lock ? sql`for update of r` : sql``}`;
  return row ?? null;
}

import { IdPrefix } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { randomId } from "../core/ids/random-id.ts";
import { ARTIFACT_COLUMNS, type ArtifactRow } from "./artifact.ts";

/** What a new Artifact row holds; the bytes are already in the blob store under `content_hash`. */
export interface NewArtifact {
  attempt_id: string;
  user_id: string;
  filename: string;
  media_type: string;
  content_hash: string;
  size_bytes: number;
  reused_from_artifact_id?: string | null;
}

/** Inserts an Artifact into an Attempt the caller has locked and checked active. */
export async function insertArtifact(sql: Sql, artifact: NewArtifact, now: Date): Promise<ArtifactRow> {
  const [row] = await sql<ArtifactRow[]>`
    insert into artifacts as r (id, attempt_id, user_id, filename, media_type, content_hash, size_bytes,
      reused_from_artifact_id, created_at)
    values (${randomId(IdPrefix.artifact)}, ${artifact.attempt_id}, ${artifact.user_id}, ${artifact.filename},
      ${artifact.media_type}, ${artifact.content_hash}, ${artifact.size_bytes},
      ${artifact.reused_from_artifact_id ?? null}, ${now})
    returning ${sql.unsafe(ARTIFACT_COLUMNS)}`;
  return row!;
}

import { AttemptAccess, readAttempt } from "../attempts/read-attempt.ts";
import type { Sql } from "../db/connect-sql.ts";
import { signedDownloads } from "../problems/signed-download.ts";
import type { ToolContext } from "../tools/tool.ts";
import type { Viewer } from "../work/viewer.ts";
import { viewerOf } from "../work/viewer.ts";
import { ARTIFACT_COLUMNS, type Artifact, type ArtifactRow, toArtifact } from "./artifact.ts";
import { canReadArtifact } from "./can-read-artifact.ts";

/**
 * list_artifacts: an Attempt's Artifacts, oldest first, withdrawn ones included (with
 * `withdrawn_at` set and no link). Live ones carry a signed link when the caller may read the bytes.
 */
export async function listArtifacts(
  context: ToolContext,
  input: { attempt_id: string },
): Promise<{ artifacts: Artifact[] }> {
  const { sql } = context.services;
  const viewer = viewerOf(context.principal);
  const { attempt } = await readAttempt(sql, viewer, input.attempt_id, { access: AttemptAccess.read });
  return { artifacts: await attemptArtifacts(sql, context, viewer, attempt.id) };
}

/** The Artifacts of one Attempt the caller may read, as records. */
export async function attemptArtifacts(
  sql: Sql,
  context: ToolContext,
  viewer: Viewer,
  attemptId: string,
): Promise<Artifact[]> {
  const rows = await sql<ArtifactRow[]>`
    select ${sql.unsafe(ARTIFACT_COLUMNS)} from artifacts r where r.attempt_id = ${attemptId}
    order by r.created_at, r.id`;
  const sign = signedDownloads(context);
  const now = context.services.clock();
  return await Promise.all(
    rows.map(async (row) =>
      toArtifact(row, (await canReadArtifact(sql, viewer, row, now)) ? sign : undefined),
    ),
  );
}

import { AttemptAccess, readAttempt } from "../attempts/read-attempt.ts";
import type { Sql } from "../core/db/connect-sql.ts";
import type { Services } from "../core/services/services.ts";
import { signedDownloads } from "../downloads/signed-download.ts";
import type { Caller } from "../users/caller.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { viewerOf } from "../visibility/viewer.ts";
import { ARTIFACT_COLUMNS, type Artifact, type ArtifactRow, toArtifact } from "./artifact.ts";
import { canReadArtifact } from "./can-read-artifact.ts";

/**
 * list_artifacts: an Attempt's Artifacts, oldest first, withdrawn ones included (with
 * `withdrawn_at` set and no link). Live ones carry a signed link when the caller may read the bytes.
 */
export async function listArtifacts(
  services: Services,
  caller: Caller,
  input: { attempt_id: string },
): Promise<{ artifacts: Artifact[] }> {
  const { sql } = services;
  const viewer = viewerOf(caller.principal);
  const { attempt } = await readAttempt(sql, viewer, input.attempt_id, { access: AttemptAccess.read });
  return { artifacts: await attemptArtifacts(sql, services, caller, viewer, attempt.id) };
}

/** The Artifacts of one Attempt the caller may read, as records. */
export async function attemptArtifacts(
  sql: Sql,
  services: Services,
  caller: Caller,
  viewer: Viewer,
  attemptId: string,
): Promise<Artifact[]> {
  const rows = await sql<ArtifactRow[]>`
    select ${sql.unsafe(ARTIFACT_COLUMNS)} from artifacts r where r.attempt_id = ${attemptId}
    order by r.created_at, r.id`;
  const sign = signedDownloads(services, caller);
  const now = services.clock();
  return await Promise.all(
    rows.map(async (row) =>
      toArtifact(row, (await canReadArtifact(sql, viewer, row, now)) ? sign : undefined),
    ),
  );
}

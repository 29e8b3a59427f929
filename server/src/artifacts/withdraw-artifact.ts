import { inTransaction } from "../core/db/in-transaction.ts";
import type { Services } from "../core/services/services.ts";
import type { Caller } from "../users/caller.ts";
import { viewerOf } from "../visibility/viewer.ts";
import { ARTIFACT_COLUMNS, type Artifact, type ArtifactRow, toArtifact } from "./artifact.ts";
import { readArtifact } from "./read-artifact.ts";

/**
 * withdraw_artifact: stops serving an Artifact of the caller, for good (write-once; the database
 * refuses a second `withdrawn_at`). Its resource and every `/dl/` link to it answer 410 from now
 * on, and no new Submission or reuse may name it. The row and the bytes stay: Submissions and
 * VerificationRuns that already recorded its hash keep a complete record, and a reuse of it in
 * another Attempt is a separate Artifact that stays live. Withdrawing again returns the Artifact
 * as it is. Ended Attempts' Artifacts may be withdrawn too.
 */
export async function withdrawArtifact(
  services: Services,
  caller: Caller,
  input: { artifact_id: string },
): Promise<{ artifact: Artifact }> {
  const { sql, clock } = services;
  const viewer = viewerOf(caller.principal);
  const row = await inTransaction(sql, async (tx) => {
    const artifact = await readArtifact(tx, viewer, input.artifact_id, { access: "own", lock: true });
    if (artifact.withdrawn_at !== null) return artifact;
    const [updated] = await tx<ArtifactRow[]>`
      update artifacts r set withdrawn_at = ${clock()} where r.id = ${artifact.id}
      returning ${tx.unsafe(ARTIFACT_COLUMNS)}`;
    return updated!;
  });
  return { artifact: toArtifact(row) };
}

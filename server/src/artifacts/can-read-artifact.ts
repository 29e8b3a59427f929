import type { Sql } from "../core/db/connect-sql.ts";
import { readableReviewSubjectSql } from "../visibility/review-subject-access.ts";
import type { Viewer } from "../visibility/viewer.ts";
import type { ArtifactRow } from "./artifact.ts";

/**
 * Whether the viewer may read an Artifact's bytes: its owner, administrators, and a reviewer
 * whose assignment is live (claimed, hold not passed at `now`) or submitted on a ReviewProcess
 * whose subject is a Submission naming the Artifact, while they may read the Problem under
 * review. A lapsed or declined claim reads nothing.
 */
export async function canReadArtifact(
  sql: Sql,
  viewer: Viewer | null,
  artifact: Pick<ArtifactRow, "id" | "user_id">,
  now: Date,
): Promise<boolean> {
  if (viewer === null) return false;
  if (viewer.isAdministrator || viewer.userId === artifact.user_id) return true;
  return await reviewsArtifact(sql, viewer.userId, artifact.id, now);
}

/**
 * Whether `userId` holds a live or submitted review assignment on a Submission naming the Artifact,
 * on work they may still read (a seat on a Problem turned private reads nothing).
 */
export async function reviewsArtifact(
  sql: Sql,
  userId: string,
  artifactId: string,
  now: Date,
): Promise<boolean> {
  const rows = await sql`
    select 1 from review_assignments a
    join review_processes rp on rp.id = a.review_process_id and rp.subject_kind = 'submission'
    join submissions s on s.id = rp.subject_id
    join users u on u.id = a.reviewer_user_id
    where a.reviewer_user_id = ${userId}
      and (u.is_admin or ${readableReviewSubjectSql(sql, { userId, isAdministrator: false })})
      and (a.status = 'submitted' or (a.status = 'claimed' and a.hold_until > ${now}))
      and s.artifacts @> ${sql.json([{ artifact_id: artifactId }])}
    limit 1`;
  return rows.length > 0;
}

import type { Sql } from "../core/db/connect-sql.ts";

/** One entry of a Problem's revision history. */
export interface RevisionHistoryEntry {
  id: string;
  revision_number: number;
  /** What the author said changed (revision_note at a revise); null for the first revision. */
  changelog_md: string | null;
  created_at: string;
}

/**
 * The revision history of a Problem already read with the caller's visibility, newest first:
 * every revision stays readable (Attempts keep the revision they pinned), so the history is whole.
 */
export async function listProblemRevisions(sql: Sql, problemId: string): Promise<RevisionHistoryEntry[]> {
  const rows = await sql<
    { id: string; revision_number: number; changelog_md: string | null; created_at: Date }[]
  >`
    select id, revision_number, changelog_md, created_at from problem_revisions
    where problem_id = ${problemId} order by revision_number desc`;
  return rows.map((row) => ({ ...row, created_at: row.created_at.toISOString() }));
}

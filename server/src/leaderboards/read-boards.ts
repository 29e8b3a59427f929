import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { getLeaderboard } from "./get-leaderboard.ts";
import type { Leaderboard } from "./leaderboard.ts";

/**
 * The current leaderboards of several Problems, each read by getLeaderboard (so its withholding,
 * direction and revocation rules hold); a Problem that ranks nothing is left out.
 */
export async function readBoards(
  sql: Sql,
  reader: { viewer: Viewer | null; now: Date },
  problems: readonly string[],
): Promise<Leaderboard[]> {
  // Read together: the page waits for the slowest board, not for their sum.
  const boards = await Promise.all(
    problems.map(async (problem) => {
      try {
        return await getLeaderboard(sql, reader, { problem });
      } catch (error) {
        if (error instanceof ServiceError && error.code === "leaderboard_not_applicable") return null;
        throw error;
      }
    }),
  );
  return boards.filter((board): board is Leaderboard => board !== null);
}

/** The Problems (ids) on whose current revision the user has a verified score, newest first, at most `limit`. */
export async function scoredProblemsOf(sql: Sql, userId: string, limit: number): Promise<string[]> {
  const rows = await sql<{ problem_id: string }[]>`
    select s.problem_id from verification_runs r
    join submissions s on s.id = r.submission_id
    join problems p on p.id = s.problem_id
    join problem_revisions pr on pr.id = r.problem_revision_id and pr.problem_id = p.id
      and pr.revision_number = p.current_revision_number
    where s.user_id = ${userId} and r.status = 'finished' and r.score is not null
    group by s.problem_id order by max(r.finished_at) desc limit ${limit}`;
  return rows.map((row) => row.problem_id);
}

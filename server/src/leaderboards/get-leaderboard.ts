import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { toProblemRevision } from "../problems/problem-revision.ts";
import { readProblem } from "../problems/read-problem.ts";
import { findRevision } from "../sealing/find-revision.ts";
import { readSealing } from "../sealing/read-sealing.ts";
import { isScoreReleased, selectionFreezesAt } from "../sealing/release-times.ts";
import { readPinnedContract } from "../verifier-contracts/read-pinned-contract.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { canManageWork } from "../visibility/work-access.ts";
import {
  WithheldBecause as Because,
  type Leaderboard,
  type LeaderboardEntry,
  ScoreDirection,
  type WithheldBecause,
} from "./leaderboard.ts";

/** Entries on one leaderboard at most: the best of 1,000 participants. */
const MAX_ENTRIES = 1000;

/**
 * get_leaderboard: the leaderboard of one revision (the current one unless `revision` names
 * another) of a Problem the viewer may read, when it is scored: a BENCHMARK Problem, or a
 * Contract whose result is a score (else `leaderboard_not_applicable`). Counted: finished runs
 * with result `verified` and a score, not revoked, of Submissions not withdrawn; each
 * participant's best; ranked by the Contract's score direction, else the benchmark's. On a sealed
 * evaluation a reader who does not manage the Problem sees no entry while final_only withholds
 * scores, nor while independent entries are private (until selection freezes).
 */
export async function getLeaderboard(
  sql: Sql,
  reader: { viewer: Viewer | null; now: Date },
  input: { problem: string; revision?: number },
): Promise<Leaderboard> {
  const problem = await readProblem(sql, reader.viewer, input.problem);
  const revision = toProblemRevision(await findRevision(sql, problem, input.revision));
  const contract = revision.verifier_contract_id
    ? await readPinnedContract(sql, revision.verifier_contract_id)
    : null;
  const benchmark = revision.benchmark as {
    metric_name?: string;
    direction?: string;
    unit?: string | null;
    baseline?: number | null;
  } | null;
  const score = contract?.score as { unit?: string; description?: string; direction?: ScoreDirection } | null;
  if (problem.structure !== "BENCHMARK" && contract?.result_kind !== "score") {
    throw new ServiceError(
      "leaderboard_not_applicable",
      `problem "${problem.slug}" ranks nothing: leaderboards rank scores, and it is neither a BENCHMARK problem nor scored by its contract`,
      { problem: input.problem },
    );
  }
  const direction =
    score?.direction ??
    (benchmark?.direction === "minimize" ? ScoreDirection.lower_is_better : ScoreDirection.higher_is_better);
  const board: Leaderboard = {
    problem_id: problem.id,
    problem_slug: problem.slug,
    problem_revision_id: revision.id,
    revision_number: revision.revision_number,
    // A benchmark names what it measures; otherwise the Contract's score does.
    metric: benchmark
      ? { name: benchmark.metric_name ?? "score", unit: benchmark.unit ?? null, direction }
      : { name: score?.description ?? "score", unit: score?.unit ?? null, direction },
    baseline: typeof benchmark?.baseline === "number" ? benchmark.baseline : null,
    withheld: null,
    entries: [],
  };
  board.withheld = await withheldFrom(sql, reader, revision, problem.owner_user_id);
  if (board.withheld) return board;
  board.entries = await bestEntries(sql, revision.id, direction);
  return board;
}

async function withheldFrom(
  sql: Sql,
  reader: { viewer: Viewer | null; now: Date },
  revision: Parameters<typeof readSealing>[1],
  ownerUserId: string,
): Promise<{ because: WithheldBecause; until: string | null } | null> {
  if (canManageWork(reader.viewer, { owner_user_id: ownerUserId })) return null;
  const sealing = await readSealing(sql, revision, ownerUserId);
  if (sealing === null) return null;
  if (!isScoreReleased(sealing, reader.now)) {
    return { because: Because.score_release, until: sealing.score_release.release_at };
  }
  if (sealing.entries === "independent") {
    const freezes = selectionFreezesAt(sealing);
    if (reader.now.getTime() < Date.parse(freezes))
      return { because: Because.independent_entries, until: freezes };
  }
  return null;
}

async function bestEntries(
  sql: Sql,
  revisionId: string,
  direction: ScoreDirection,
): Promise<LeaderboardEntry[]> {
  const better = direction === ScoreDirection.lower_is_better ? sql`r.score asc` : sql`r.score desc`;
  const rows = await sql<
    {
      user_id: string;
      handle: string;
      score: number;
      run_id: string;
      submission_id: string;
      finished_at: Date;
    }[]
  >`
    select * from (
      select distinct on (s.user_id) s.user_id, u.handle, r.score, r.id as run_id, s.id as submission_id, r.finished_at
      from verification_runs r
      join submissions s on s.id = r.submission_id
      join users u on u.id = s.user_id
      where r.problem_revision_id = ${revisionId} and r.status = 'finished' and r.result = 'verified'
        and r.score is not null and r.revocation is null and s.status = 'active'
      order by s.user_id, ${better}, r.finished_at, r.id
    ) best
    order by ${direction === ScoreDirection.lower_is_better ? sql`score asc` : sql`score desc`}, finished_at, run_id
    limit ${MAX_ENTRIES}`;
  const entries: LeaderboardEntry[] = [];
  rows.forEach((row, i) => {
    const tied = i > 0 && rows[i - 1]!.score === row.score;
    entries.push({
      rank: tied ? entries[i - 1]!.rank : i + 1,
      participant: { user_id: row.user_id, handle: row.handle },
      score: row.score,
      verification_run_id: row.run_id,
      submission_id: row.submission_id,
      finished_at: row.finished_at.toISOString(),
    });
  });
  return entries;
}

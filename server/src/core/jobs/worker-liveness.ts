import type { Sql } from "../db/connect-sql.ts";

/** A worker silent for this long is dead: the jobs it holds are released (SVC_WORKER_DEAD_AFTER_S). */
export const WORKER_DEAD_MS = 90_000;

/** How often a worker process beats: six beats to a death, so a slow beat or two is not one. */
export function heartbeatMs(deadAfterMs: number): number {
  return Math.max(500, Math.floor(deadAfterMs / 6));
}

/** Records that these graphile-worker workers are alive at `now`. */
export async function beatWorkers(sql: Sql, workerIds: readonly string[], now: Date): Promise<void> {
  if (workerIds.length === 0) return;
  await sql`
    insert into worker_heartbeats (worker_id, beat_at)
    select id, ${now} from unnest(${sql.array([...workerIds])}::text[]) as id
    on conflict (worker_id) do update set beat_at = excluded.beat_at`;
}

/** Forgets workers that stopped cleanly: their jobs were finished or released by graphile-worker. */
export async function forgetWorkers(sql: Sql, workerIds: readonly string[]): Promise<void> {
  if (workerIds.length === 0) return;
  await sql`delete from worker_heartbeats where worker_id = any(${sql.array([...workerIds])}::text[])`;
}

/**
 * Releases every job (of any task) locked by a worker that has not beaten for `deadAfterMs` and
 * has held its lock that long: a process killed mid-job (kill -9, a lost host) would otherwise
 * keep its jobs locked for graphile-worker's four hours. Uses graphile-worker's own
 * `force_unlock_workers`, so the jobs run again on a live worker with their keys, attempts and
 * payloads intact. Returns the ids of the workers found dead.
 */
export async function releaseDeadWorkersJobs(
  sql: Sql,
  now: Date,
  deadAfterMs = WORKER_DEAD_MS,
): Promise<string[]> {
  const before = new Date(now.getTime() - deadAfterMs);
  const dead = await sql<{ locked_by: string }[]>`
    select distinct j.locked_by from graphile_worker.jobs j
    where j.locked_by is not null and j.locked_at < ${before}
      and not exists (
        select 1 from worker_heartbeats h where h.worker_id = j.locked_by and h.beat_at >= ${before})`;
  const ids = dead.map((row) => row.locked_by);
  if (ids.length > 0) {
    await sql`select graphile_worker.force_unlock_workers(${sql.array(ids)}::text[])`;
  }
  await sql`delete from worker_heartbeats where beat_at < ${new Date(before.getTime() - deadAfterMs)}`;
  return ids;
}

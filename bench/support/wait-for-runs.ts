import { setTimeout as sleep } from "node:timers/promises";
import type postgres from "postgres";

/**
 * Waits until the bench's database has no unfinished verification run, polling every 10 ms. A
 * bench waits for each measurement's runs before the next, so every unfinished run is this
 * measurement's: counted on the partial index of unfinished runs. Matching the measurement's run
 * ids instead cost PostgreSQL 1.2-1.6 ms a poll, a tenth of a core taken from what is measured.
 */
export async function waitForRunsFinished(sql: postgres.Sql): Promise<void> {
  for (;;) {
    const [row] = await sql<{ open: number }[]>`
      select count(*)::int as open from verification_runs where status <> 'finished'`;
    if (row!.open === 0) return;
    await sleep(10);
  }
}

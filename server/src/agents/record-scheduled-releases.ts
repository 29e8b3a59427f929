import type { Sql } from "../core/db/connect-sql.ts";
import { TaskName } from "../core/jobs/task-name.ts";
import type { Services } from "../core/services/services.ts";
import type { ReferenceBinding } from "../problems/problem-revision.ts";
import { readSealing } from "../sealing/read-sealing.ts";
import { recordInputsReleased } from "./record-inputs-released.ts";

/** A sealed revision whose sealed_until has passed and whose release is not recorded yet. */
interface DueRevision {
  id: string;
  sealed_until: Date;
  sealing: Record<string, unknown>;
  verifier_contract_id: string | null;
  verifier_input_bindings: ReferenceBinding[];
  owner_user_id: string;
}

/** Revisions recorded per transaction, so a long catch-up commits as it goes. */
const BATCH = 50;

/**
 * Queues the release_sealed_inputs task for the instant a revision's sealed inputs are released
 * by date (its `sealed_until`), in the publishing transaction. The task scans for every due
 * revision, so a job that runs late or twice is harmless.
 */
export async function scheduleInputsRelease(tx: Sql, revisionId: string, sealedUntil: string): Promise<void> {
  await tx`
    select graphile_worker.add_job(${TaskName.releaseSealedInputs}, '{}'::json,
      run_at => ${new Date(sealedUntil)}, job_key => ${`release_sealed_inputs:${revisionId}`}, max_attempts => 5)`;
}

/**
 * The release_sealed_inputs task: for every sealed revision whose `sealed_until` is at or before
 * now and not yet recorded, writes the `inputs_released` criteria changes (and their events) its
 * active Attempts are owed, dated at `sealed_until`, the instant the inputs became public, and
 * records the revision in scheduled_releases. A revision released early is recorded with none:
 * the early release wrote them. One revision per transaction under an advisory lock on its id,
 * checked again under the lock, so concurrent or repeated runs record each revision once.
 * Returns how many revisions it recorded.
 */
export async function recordScheduledReleases(services: Services): Promise<number> {
  let recorded = 0;
  for (;;) {
    const now = services.clock();
    const due = await services.sql<DueRevision[]>`
      select r.id, (r.sealing ->> 'sealed_until')::timestamptz as sealed_until, r.sealing, r.verifier_contract_id,
        r.verifier_input_bindings, p.owner_user_id
      from problem_revisions r join problems p on p.id = r.problem_id
      where r.sealing is not null and (r.sealing ->> 'sealed_until')::timestamptz <= ${now}
        and not exists (select 1 from scheduled_releases s where s.problem_revision_id = r.id)
      order by sealed_until, r.id limit ${BATCH}`;
    for (const revision of due) {
      if (await recordOne(services, revision, now)) recorded++;
    }
    if (due.length < BATCH) return recorded;
  }
}

async function recordOne(services: Services, revision: DueRevision, now: Date): Promise<boolean> {
  return await services.sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${`scheduled_release:${revision.id}`}))`;
    const [done] = await tx`select 1 from scheduled_releases where problem_revision_id = ${revision.id}`;
    if (done) return false;
    const sealing = await readSealing(tx, revision, revision.owner_user_id);
    const early =
      sealing?.unsealed_at !== null &&
      sealing?.unsealed_at !== undefined &&
      Date.parse(sealing.unsealed_at) < revision.sealed_until.getTime();
    const changes = early
      ? 0
      : await recordInputsReleased(tx, {
          revisionIds: [revision.id],
          reason: `the sealed inputs were released at their scheduled date, sealed_until ${revision.sealed_until.toISOString()}`,
          at: revision.sealed_until,
        });
    await tx`
      insert into scheduled_releases (problem_revision_id, released_at, criteria_changes, recorded_at)
      values (${revision.id}, ${revision.sealed_until}, ${changes}, ${now})`;
    return true;
  });
}

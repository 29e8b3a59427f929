import { IdPrefix, idPattern } from "@svc/schemas";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { enqueueRun } from "../core/jobs/enqueue-run.ts";
import type { Services } from "../core/services/services.ts";
import { readableContractSql } from "../visibility/mechanism-visibility-sql.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { currentImplementation } from "./current-implementation.ts";

const IMPLEMENTATION_ID = idPattern(IdPrefix.verifierImplementation);

/**
 * When, by whom and why a record was withdrawn (spec 3 and 9.5). The canonical record carries
 * `yanked_at` alone (no additional properties); the actor and reason are kept beside it, written
 * once with it (migration 017).
 */
export interface Yank {
  yanked_at: string;
  /** Null: an operator with svc-server. */
  yanked_by_user_id: string | null;
  reason_md: string;
}

/** What yank_verifier_implementation returns. */
export interface ImplementationYank {
  verifier_implementation_id: string;
  verifier_contract_id: string;
  stage_key: string;
  version_number: number;
  yank: Yank;
  /** The stage's current implementation after the yank, recomputed by the shared rule (spec 2.2). */
  current_implementation_id: string | null;
  /** Unfinished runs whose stage was waiting and now says why; each is woken to choose again. */
  waiting_verification_run_ids: string[];
}

/**
 * yank_verifier_implementation (spec 3 and 9.5): its publisher or a live administrator withdraws
 * an implementation, once, with a reason. A yanked implementation runs nothing new: the stage's
 * current implementation is recomputed (there is no stored pointer, so every later choice skips
 * it), and every unfinished run whose stage is still queued on this Contract stage records why it
 * waits and is woken to choose again now. Runs it already ran keep their result: revoking them is
 * a separate, operator decision (revoke_implementation_runs). A caller who cannot read the
 * implementation's Contract gets not_found; one who can but did not publish it gets not_yours.
 * `viewer` null is an operator with shell access (`svc-server implementation yank`), who may yank
 * any implementation, recorded as a null `yanked_by_user_id`.
 */
export async function yankVerifierImplementation(
  services: Pick<Services, "sql" | "clock">,
  viewer: Viewer | null,
  input: { verifier_implementation_id: string; reason_md: string },
): Promise<ImplementationYank> {
  const id = input.verifier_implementation_id;
  return await inTransaction(services.sql, async (tx) => {
    const [row] = IMPLEMENTATION_ID.test(id)
      ? await tx<
          {
            verifier_contract_id: string;
            stage_key: string;
            version_number: number;
            created_by_user_id: string;
            yanked_at: Date | null;
            yanked_by_user_id: string | null;
            yank_reason_md: string | null;
            readable: boolean;
          }[]
        >`
          select vi.verifier_contract_id, vi.stage_key, vi.version_number, vi.created_by_user_id, vi.yanked_at,
            vi.yanked_by_user_id, vi.yank_reason_md, ${viewer ? readableContractSql(tx, viewer) : tx`true`} as readable
          from verifier_implementations vi join verifier_contracts vc on vc.id = vi.verifier_contract_id
          where vi.id = ${id} for update of vi`
      : [];
    const owner = viewer === null || row?.created_by_user_id === viewer.userId;
    if (!row || !(row.readable || owner)) {
      throw new ServiceError("not_found", `no verifier implementation you can read has the id "${id}"`, {
        verifier_implementation_id: id,
      });
    }
    if (!owner && !viewer?.isAdministrator) {
      throw new ServiceError(
        "not_yours",
        `implementation ${id} was published by another user; only its publisher or an administrator yanks it`,
        { verifier_implementation_id: id },
      );
    }
    if (row.yanked_at !== null) {
      throw new ServiceError(
        "already_yanked",
        `implementation ${id} is already yanked; a yank is written once`,
        {
          verifier_implementation_id: id,
          yank: {
            yanked_at: row.yanked_at.toISOString(),
            yanked_by_user_id: row.yanked_by_user_id,
            reason_md: row.yank_reason_md,
          },
        },
      );
    }
    const yank: Yank = {
      yanked_at: services.clock().toISOString(),
      yanked_by_user_id: viewer?.userId ?? null,
      reason_md: input.reason_md,
    };
    await tx`
      update verifier_implementations
      set yanked_at = ${yank.yanked_at}, yanked_by_user_id = ${yank.yanked_by_user_id}, yank_reason_md = ${yank.reason_md}
      where id = ${id}`;
    const { current, pending } = await currentImplementation(tx, row.verifier_contract_id, row.stage_key);
    const next = current
      ? `the stage now runs version ${current.version_number} (${current.id})`
      : pending
        ? `the stage waits for version ${pending.version_number} (${pending.id}) to pass its conformance fixtures`
        : "no other implementation of the stage passed its conformance fixtures, so the service cannot execute it";
    const notice = `waiting: implementation ${id} (version ${row.version_number}) was yanked: ${input.reason_md}`;
    const waiting = await tx<{ verification_run_id: string }[]>`
      update verification_stage_results st
      set evidence_md = left(${`${notice}\n\n${next}`}, 20000)
      from verification_runs r
      where r.id = st.verification_run_id and r.verifier_contract_id = ${row.verifier_contract_id}
        and r.status <> 'finished' and st.stage_key = ${row.stage_key} and st.status = 'queued'
      returning st.verification_run_id`;
    for (const run of waiting) await enqueueRun(tx, run.verification_run_id);
    return {
      verifier_implementation_id: id,
      verifier_contract_id: row.verifier_contract_id,
      stage_key: row.stage_key,
      version_number: row.version_number,
      yank,
      current_implementation_id: current?.id ?? null,
      waiting_verification_run_ids: waiting.map((run) => run.verification_run_id).sort(),
    };
  });
}

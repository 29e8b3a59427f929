import type { Sql } from "../core/db/connect-sql.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Viewer } from "../visibility/viewer.ts";

/** What removing an attester returns: the removal as it is kept. */
export interface AttesterRemoval {
  system: string;
  user_id: string;
  handle: string;
  added_by_user_id: string | null;
  added_at: string;
  /** Null: an operator with svc-server. */
  removed_by_user_id: string | null;
  removed_at: string;
  reason_md: string;
}

/**
 * Removes a user from the attesters of a partner system (spec 2.5 external_system): from now on
 * attest_external_stage refuses them for the system's stages, and runs already attested keep their
 * attestation. The attester row goes and the removal is kept for good, with who added the user,
 * who removed them, when and why (migration 030). Only an operator removes one: a live
 * administrator, or `viewer` null, an operator with shell access (`svc-server external-system
 * remove-attester`), recorded as a null actor.
 */
export async function removeExternalSystemAttester(
  sql: Sql,
  viewer: Viewer | null,
  input: { system: string; attester: string; reason_md: string },
): Promise<{ removal: AttesterRemoval }> {
  if (viewer && !viewer.isAdministrator) {
    throw new ServiceError(
      "forbidden",
      "removing an attester from a partner system is for the service's operators (administrators)",
      { system: input.system },
    );
  }
  if (input.reason_md.length < 1 || input.reason_md.length > 10000) {
    throw new ServiceError(
      "invalid_input",
      "reason_md must say why the attester goes, 1 to 10000 characters",
      {
        field: "reason_md",
      },
    );
  }
  return await inTransaction(sql, async (tx) => {
    const [attester] = await tx<
      { user_id: string; handle: string; added_by_user_id: string | null; added_at: Date }[]
    >`
      select a.user_id, u.handle, a.added_by_user_id, a.added_at
      from external_system_attesters a join users u on u.id = a.user_id
      where a.system = ${input.system} and u.handle = ${input.attester}
      for update of a`;
    if (!attester) {
      const [system] = await tx`select 1 from external_systems where system = ${input.system}`;
      throw new ServiceError(
        "not_found",
        system
          ? `"${input.attester}" is not an attester of the partner system "${input.system}"`
          : `no partner system is registered as "${input.system}"`,
        { system: input.system, attester: input.attester },
      );
    }
    await tx`delete from external_system_attesters where system = ${input.system} and user_id = ${attester.user_id}`;
    const [removal] = await tx<{ removed_at: Date }[]>`
      insert into external_system_attester_removals
        (system, user_id, added_by_user_id, added_at, removed_by_user_id, reason_md)
      values (${input.system}, ${attester.user_id}, ${attester.added_by_user_id}, ${attester.added_at},
        ${viewer?.userId ?? null}, ${input.reason_md})
      returning removed_at`;
    return {
      removal: {
        system: input.system,
        user_id: attester.user_id,
        handle: attester.handle,
        added_by_user_id: attester.added_by_user_id,
        added_at: attester.added_at.toISOString(),
        removed_by_user_id: viewer?.userId ?? null,
        removed_at: removal!.removed_at.toISOString(),
        reason_md: input.reason_md,
      },
    };
  });
}

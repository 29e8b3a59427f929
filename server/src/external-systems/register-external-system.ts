import type { Sql } from "../core/db/connect-sql.ts";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Viewer } from "../visibility/viewer.ts";

/** A partner system as register_external_system reports it. */
export interface ExternalSystem {
  system: string;
  attestation_hours: number;
  /** Null: an operator with svc-server. */
  registered_by_user_id: string | null;
  registered_at: string;
  attesters: Array<{ user_id: string; handle: string; added_by_user_id: string | null; added_at: string }>;
}

/**
 * register_external_system (spec 2.5 external_system): an operator (a live administrator)
 * registers the partner system a Contract's external stage names, by that exact name, with how
 * many hours a run waits for its attestation, and adds the users who may attest for it. Calling
 * again changes the hours (for stages that start waiting afterwards) and adds attesters; an
 * attester is never silently removed. Unknown handles are refused, naming them. `viewer` null is
 * an operator with shell access (`svc-server external-system register`), recorded as a null actor.
 */
export async function registerExternalSystem(
  sql: Sql,
  viewer: Viewer | null,
  input: { system: string; attestation_hours: number; attesters: string[] },
): Promise<{ external_system: ExternalSystem }> {
  const actor = viewer?.userId ?? null;
  if (viewer && !viewer.isAdministrator) {
    throw new ServiceError(
      "forbidden",
      "registering a partner system is for the service's operators (administrators)",
      {
        system: input.system,
      },
    );
  }
  if (input.system.length < 1 || input.system.length > 200 || input.system.trim() !== input.system) {
    throw new ServiceError(
      "invalid_input",
      "system must be the name external_system gives, 1 to 200 characters without leading or trailing spaces",
      { field: "system" },
    );
  }
  return await inTransaction(sql, async (tx) => {
    const handles = [...new Set(input.attesters)];
    const users = await tx<
      { id: string; handle: string }[]
    >`select id, handle from users where handle = any(${handles})`;
    const unknown = handles.filter((handle) => !users.some((user) => user.handle === handle));
    if (unknown.length > 0) {
      throw new ServiceError(
        "invalid_input",
        `attesters: no user has the handle ${unknown.map((h) => `"${h}"`).join(", ")}`,
        {
          field: "attesters",
          unknown,
        },
      );
    }
    await tx`
      insert into external_systems (system, attestation_hours, registered_by_user_id)
      values (${input.system}, ${input.attestation_hours}, ${actor})
      on conflict (system) do update set attestation_hours = excluded.attestation_hours`;
    for (const user of users) {
      await tx`
        insert into external_system_attesters (system, user_id, added_by_user_id)
        values (${input.system}, ${user.id}, ${actor}) on conflict do nothing`;
    }
    const [system] = await tx<
      {
        system: string;
        attestation_hours: number;
        registered_by_user_id: string | null;
        registered_at: Date;
      }[]
    >`
      select system, attestation_hours, registered_by_user_id, registered_at from external_systems where system = ${input.system}`;
    const attesters = await tx<
      { user_id: string; handle: string; added_by_user_id: string | null; added_at: Date }[]
    >`
      select a.user_id, u.handle, a.added_by_user_id, a.added_at
      from external_system_attesters a join users u on u.id = a.user_id
      where a.system = ${input.system} order by a.added_at, u.handle`;
    return {
      external_system: {
        system: system!.system,
        attestation_hours: system!.attestation_hours,
        registered_by_user_id: system!.registered_by_user_id,
        registered_at: system!.registered_at.toISOString(),
        attesters: attesters.map((a) => ({ ...a, added_at: a.added_at.toISOString() })),
      },
    };
  });
}

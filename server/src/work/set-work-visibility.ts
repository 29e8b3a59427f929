import { Role, Visibility } from "@svc/schemas";
import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { endClaimsWithoutAccess, openProcessesOfWork } from "../reviews/end-claims-without-access.ts";
import { liveRole } from "../users/live-role.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { lesserVisibility } from "../visibility/visibility.ts";
import { checkSnapshot } from "./check-snapshot.ts";
import { loadManagedWork, type ManagedWork } from "./managed-work.ts";
import { recordWorkAudit } from "./record-work-audit.ts";
import type { WorkReference } from "./work-reference.ts";
import { workSnapshot } from "./work-snapshot.ts";

/**
 * set_work_visibility: moves a Campaign or Problem between private, unlisted and listed (any
 * step, either direction), guarded by `expected_snapshot`, with roles read live:
 *
 * - an administrator may set any visibility on any work;
 * - an owner may always restrict their own work (hiding never needs a grant);
 * - raising it to unlisted needs the author role, to listed the trusted-author role.
 *
 * A Campaign's visibility applies to the Campaign, and so to its Problems, whose effective
 * visibility is the lesser of their own and the Campaign's. A Problem's own setting inside a
 * Campaign is its exception. Each change appends a work_audit entry; setting the current value
 * changes nothing and records nothing.
 */
export async function setWorkVisibility(
  services: Services,
  viewer: Viewer,
  input: { work: WorkReference; visibility: Visibility; expected_snapshot: string },
): Promise<{ work: ManagedWork; snapshot: string; previous_visibility: Visibility; changed: boolean }> {
  return inTransaction(services.sql, async (tx) => {
    const work = await loadManagedWork(tx, viewer, input.work, { lock: true });
    const previous = work.visibility;
    if (previous !== input.visibility) await requireVisibilityRole(tx, viewer, work, input.visibility);
    checkSnapshot(work, input.expected_snapshot);
    if (previous === input.visibility) {
      return { work, snapshot: workSnapshot(work), previous_visibility: previous, changed: false };
    }
    const now = services.clock();
    if (work.kind === "campaign") {
      await tx`update campaigns set visibility = ${input.visibility}, updated_at = ${now} where id = ${work.id}`;
    } else {
      await tx`update problems set visibility = ${input.visibility}, updated_at = ${now} where id = ${work.id}`;
    }
    // A reviewer holding a seat who may no longer read the work loses the seat now.
    await endClaimsWithoutAccess(tx, await openProcessesOfWork(tx, work), now);
    await recordWorkAudit(
      tx,
      viewer.userId,
      null,
      [
        {
          action: "set_visibility",
          subject_kind: work.kind,
          subject_id: work.id,
          detail: { from: previous, to: input.visibility },
        },
      ],
      now,
    );
    const updated = await loadManagedWork(tx, viewer, input.work);
    return { work: updated, snapshot: workSnapshot(updated), previous_visibility: previous, changed: true };
  });
}

async function requireVisibilityRole(
  sql: Parameters<typeof liveRole>[0],
  viewer: Viewer,
  work: ManagedWork,
  target: Visibility,
): Promise<void> {
  if (viewer.isAdministrator) return;
  // Restricting is always the owner's to do; only raising visibility needs a grant.
  if (lesserVisibility(target, work.visibility) === target) return;
  const { roles } = await liveRole(sql, viewer.userId);
  if (target === Visibility.listed && !roles.includes(Role.trusted_author)) {
    throw new ServiceError(
      "forbidden",
      `listing your own ${work.kind} needs the trusted-author role (or an administrator): make it unlisted instead, or ask an administrator for trusted_author access (set_author_access)`,
      { required_role: Role.trusted_author },
    );
  }
  if (!roles.includes(Role.author)) {
    throw new ServiceError(
      "forbidden",
      `making your ${work.kind} ${target} needs the author role: ask an administrator for author access (set_author_access)`,
      { required_role: Role.author },
    );
  }
}

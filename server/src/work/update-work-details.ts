import { inTransaction } from "../core/db/in-transaction.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { checkSnapshot } from "./check-snapshot.ts";
import { loadManagedWork, type ManagedWork } from "./managed-work.ts";
import { recordWorkAudit } from "./record-work-audit.ts";
import type { WorkReference } from "./work-reference.ts";
import { workSnapshot } from "./work-snapshot.ts";

/** The mutable details; each is optional and at least one is given. */
export interface WorkDetails {
  title?: string;
  summary?: string;
  /** Problems only. */
  priority_weight?: number;
  /** Campaigns only. */
  description_md?: string;
}

/**
 * update_work_details: changes a Campaign's or Problem's mutable details in place (no new
 * revision), for its owner or a live administrator, guarded by `expected_snapshot`. A Problem's
 * search document is rebuilt with the new title and summary. Records one work_audit entry with
 * each changed field's old and new value; unchanged values write nothing.
 */
export async function updateWorkDetails(
  services: Services,
  viewer: Viewer,
  input: { work: WorkReference; expected_snapshot: string } & WorkDetails,
): Promise<{ work: ManagedWork; snapshot: string; changed: string[] }> {
  const { work: reference, expected_snapshot, ...details } = input;
  const given = Object.entries(details).filter(([, value]) => value !== undefined);
  if (given.length === 0) {
    throw new ServiceError(
      "invalid_input",
      "give at least one of title, summary, priority_weight, description_md",
      {
        field: "title",
      },
    );
  }
  return inTransaction(services.sql, async (tx) => {
    const work = await loadManagedWork(tx, viewer, reference, { lock: true });
    if (work.kind === "campaign" && details.priority_weight !== undefined) {
      throw new ServiceError("invalid_input", "priority_weight belongs to problems: a campaign has none", {
        field: "priority_weight",
      });
    }
    if (work.kind === "problem" && details.description_md !== undefined) {
      throw new ServiceError(
        "invalid_input",
        "description_md belongs to campaigns: a problem's text is its statement",
        {
          field: "description_md",
        },
      );
    }
    checkSnapshot(work, expected_snapshot);
    const current = work as unknown as Record<string, unknown>;
    const changes = Object.fromEntries(
      given
        .filter(([field, value]) => current[field] !== value)
        .map(([field, value]) => [field, { from: current[field], to: value }]),
    );
    const changed = Object.keys(changes);
    if (changed.length === 0) return { work, snapshot: workSnapshot(work), changed };
    const now = services.clock();
    const title = details.title ?? work.title;
    const summary = details.summary ?? work.summary;
    if (work.kind === "campaign") {
      await tx`
        update campaigns set title = ${title}, summary = ${summary},
          description_md = ${details.description_md ?? work.description_md}, updated_at = ${now}
        where id = ${work.id}`;
    } else {
      await tx`
        update problems set title = ${title}, summary = ${summary},
          priority_weight = ${details.priority_weight ?? work.priority_weight}, updated_at = ${now},
          search_document = svc_problem_search_document(${title}, ${summary},
            (select statement_md from problem_revisions where id = problems.current_revision_id))
        where id = ${work.id}`;
    }
    await recordWorkAudit(
      tx,
      viewer.userId,
      null,
      [{ action: "update_details", subject_kind: work.kind, subject_id: work.id, detail: { changes } }],
      now,
    );
    const updated = await loadManagedWork(tx, viewer, reference);
    return { work: updated, snapshot: workSnapshot(updated), changed };
  });
}

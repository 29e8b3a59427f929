import type { Reconciliation } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { LiveRead } from "./read-live-state.ts";

/**
 * Refuses, with revision_review_required (spec 7), a publication that would replace the current
 * revision of a Problem an administrator approved through a publication request (a draft version
 * or a work snapshot, docs/work-drafts.md): the approved revision stays current until the new
 * one is reviewed. Both authoring paths (an upload, a prepared draft) meet it here; an
 * administrator's publication and the approval itself pass.
 */
export async function requireUnreviewed(
  sql: Sql,
  live: LiveRead,
  reconciliation: Reconciliation,
): Promise<void> {
  const replaced = reconciliation.problems
    .filter((p) => p.action === "revise")
    .map((p) => live.problems.get(p.slug))
    .filter((p) => p !== undefined);
  if (replaced.length === 0) return;
  const reviewed = await sql<{ id: string; slug: string }[]>`
    select p.id, p.slug from problems p
    where p.id in ${sql(replaced.map((p) => p.problem_id))} and (
      exists (select 1 from work_drafts d where d.reviewed_version is not null and d.work -> 'problem_ids' ? p.id)
      or exists (select 1 from publication_requests r
        where r.status = 'approved' and r.work_id in (p.id, coalesce(p.campaign_id, ''))))
    order by p.slug`;
  if (reviewed.length === 0) return;
  throw new ServiceError(
    "revision_review_required",
    `${reviewed.map((p) => p.slug).join(", ")} ${reviewed.length === 1 ? "has a revision" : "have revisions"} an administrator approved; this publication would replace it, so the approved revision stays current: request_work_publication for the new version and an administrator reviews it`,
    { problems: reviewed.map((p) => p.slug) },
  );
}

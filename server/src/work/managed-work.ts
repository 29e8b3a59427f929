import { IdPrefix, idPattern, type Visibility } from "@svc/schemas";
import type { CampaignRow } from "../campaigns/campaign-row.ts";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { type ProblemRow, problemColumnsSql } from "../problems/problem-row.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { canManageWork, canReadWork } from "../visibility/work-access.ts";
import type { WorkReference } from "./work-reference.ts";

/**
 * A piece of work as its managers see it (get_work_management): its own visibility, what callers
 * effectively see, and the details update_work_details may change.
 */
export type ManagedWork =
  | {
      kind: "campaign";
      id: string;
      slug: string;
      owner_user_id: string;
      visibility: Visibility;
      effective_visibility: Visibility;
      status: CampaignRow["status"];
      title: string;
      summary: string;
      description_md: string;
      created_at: string;
      updated_at: string;
      archived_at: string | null;
    }
  | {
      kind: "problem";
      id: string;
      slug: string;
      owner_user_id: string;
      /** The Problem's own setting; inside a Campaign, an exception that can only restrict. */
      visibility: Visibility;
      effective_visibility: Visibility;
      status: ProblemRow["status"];
      title: string;
      summary: string;
      priority_weight: number;
      campaign_id: string | null;
      campaign_slug: string | null;
      campaign_visibility: Visibility | null;
      current_revision_id: string | null;
      current_revision_number: number;
      created_at: string;
      updated_at: string;
      archived_at: string | null;
    };

/**
 * The work a reference names, for a viewer who manages it (owner, or a live administrator).
 * not_found when it does not exist or the viewer may not even read it; forbidden when they may
 * read it but do not manage it. With `lock`, the row is locked for the caller's transaction.
 */
export async function loadManagedWork(
  sql: Sql,
  viewer: Viewer,
  reference: WorkReference,
  options: { lock?: boolean } = {},
): Promise<ManagedWork> {
  const lock = options.lock ? sql`for update` : sql``;
  if ("campaign" in reference) {
    const name = reference.campaign;
    const byId = idPattern(IdPrefix.campaign).test(name);
    const [row] = await sql<CampaignRow[]>`
      select * from campaigns where ${byId ? sql`id = ${name}` : sql`slug = ${name}`} ${lock}`;
    check(viewer, row, "campaign", name);
    return managedCampaign(row!);
  }
  const name = reference.problem;
  const byId = idPattern(IdPrefix.problem).test(name);
  const [row] = await sql<ProblemRow[]>`
    select ${problemColumnsSql(sql)} from problems p left join campaigns c on c.id = p.campaign_id
    where ${byId ? sql`p.id = ${name}` : sql`p.slug = ${name}`} ${options.lock ? sql`for update of p` : sql``}`;
  check(viewer, row, "problem", name);
  return managedProblem(row!);
}

/** A Campaign row as its managers see it. */
export function managedCampaign(row: CampaignRow): ManagedWork {
  return {
    kind: "campaign",
    id: row.id,
    slug: row.slug,
    owner_user_id: row.owner_user_id,
    visibility: row.visibility,
    effective_visibility: row.visibility,
    status: row.status,
    title: row.title,
    summary: row.summary,
    description_md: row.description_md,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    archived_at: row.archived_at?.toISOString() ?? null,
  };
}

/** A Problem row (read with {@link problemColumnsSql}) as its managers see it. */
export function managedProblem(row: ProblemRow): ManagedWork {
  return {
    kind: "problem",
    id: row.id,
    slug: row.slug,
    owner_user_id: row.owner_user_id,
    visibility: row.own_visibility,
    effective_visibility: row.visibility,
    status: row.status,
    title: row.title,
    summary: row.summary,
    priority_weight: row.priority_weight,
    campaign_id: row.campaign_id,
    campaign_slug: row.campaign_slug,
    campaign_visibility: row.campaign_visibility,
    current_revision_id: row.current_revision_id,
    current_revision_number: row.current_revision_number,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    archived_at: row.archived_at?.toISOString() ?? null,
  };
}

function check(
  viewer: Viewer,
  row: { owner_user_id: string; visibility: Visibility } | undefined,
  kind: "campaign" | "problem",
  name: string,
): void {
  if (!row || !canReadWork(viewer, row)) {
    throw new ServiceError("not_found", `no ${kind} has the id or slug "${name}"`, { [kind]: name });
  }
  if (!canManageWork(viewer, row)) {
    throw new ServiceError(
      "forbidden",
      `only the owner of ${kind} "${name}" or an administrator manages it`,
      { [kind]: name },
    );
  }
}

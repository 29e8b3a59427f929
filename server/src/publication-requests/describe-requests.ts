import type { Sql } from "../core/db/connect-sql.ts";
import type { PublicationRequest } from "./publication-request.ts";

/** What an administrator needs to judge a request at a glance: names, not ids. */
export interface RequestDescription {
  requester_handle: string;
  /** The draft's or the work's title, and a work's slug (a draft has none yet). */
  title: string;
  slug: string | null;
  /** Where the pinned thing is read: the draft's page, or the Problem's or Campaign's page. */
  href: string;
  /** What approving does, in words. */
  plan: string;
}

/**
 * The names behind a page of publication requests (list_publication_requests gives ids), read in
 * one statement: the requester's handle, the draft's or work's title and slug, and the plan an
 * approval carries out: publishing the pinned draft version, or setting the pinned snapshot's
 * visibility. For administrators, who may read every request.
 */
export async function describeRequests(
  sql: Sql,
  requests: readonly PublicationRequest[],
): Promise<Map<string, RequestDescription>> {
  if (requests.length === 0) return new Map();
  const rows = await sql<
    {
      id: string;
      handle: string;
      draft_title: string | null;
      draft_files: number | null;
      draft_prepared: number | null;
      problem_title: string | null;
      problem_slug: string | null;
      problem_visibility: string | null;
      campaign_title: string | null;
      campaign_slug: string | null;
      campaign_visibility: string | null;
    }[]
  >`
    select r.id, u.handle,
      d.title as draft_title, jsonb_array_length(d.files) as draft_files, d.prepared_version as draft_prepared,
      p.title as problem_title, p.slug as problem_slug, p.visibility as problem_visibility,
      c.title as campaign_title, c.slug as campaign_slug, c.visibility as campaign_visibility
    from publication_requests r
    join users u on u.id = r.requester_user_id
    left join work_drafts d on d.id = r.draft_id
    left join problems p on r.work_kind = 'problem' and p.id = r.work_id
    left join campaigns c on r.work_kind = 'campaign' and c.id = r.work_id
    where r.id = any(${requests.map((r) => r.id)})`;
  const out = new Map<string, RequestDescription>();
  for (const row of rows) {
    const request = requests.find((r) => r.id === row.id)!;
    if (request.draft_id) {
      out.set(row.id, {
        requester_handle: row.handle,
        title: row.draft_title || "(untitled draft)",
        slug: null,
        href: `/work/drafts/${encodeURIComponent(request.draft_id)}`,
        plan: `publish draft version ${request.draft_version} (${row.draft_files ?? 0} files${row.draft_prepared ? `, version ${row.draft_prepared} prepared` : ", not prepared yet"}) as ${request.visibility} work`,
      });
    } else {
      const problem = row.problem_slug !== null;
      const slug = (problem ? row.problem_slug : row.campaign_slug) ?? "";
      out.set(row.id, {
        requester_handle: row.handle,
        title: (problem ? row.problem_title : row.campaign_title) ?? slug,
        slug,
        href: `/${problem ? "problems" : "campaigns"}/${encodeURIComponent(slug)}`,
        plan: `make ${problem ? "problem" : "campaign"} ${slug} ${request.visibility} (now ${(problem ? row.problem_visibility : row.campaign_visibility) ?? "?"}), at the snapshot it was asked at`,
      });
    }
  }
  return out;
}

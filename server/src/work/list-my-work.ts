import type { UploadState } from "@svc/schemas";
import type { CampaignRow } from "../campaigns/campaign-row.ts";
import {
  type ConformanceFailure,
  type ConformanceRecordFailure,
  conformanceFailures,
  readConformanceFailures,
} from "../conformance/read-conformance-failures.ts";
import type { Sql } from "../core/db/connect-sql.ts";
import { type ProblemRow, problemColumnsSql } from "../problems/problem-row.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { type ManagedWork, managedCampaign, managedProblem } from "./managed-work.ts";
import { workSnapshot } from "./work-snapshot.ts";

/** Every list comes in pages of this many: an author may hold thousands of each kind. */
export const PROBLEMS_PER_PAGE = 50;

/** A piece of work with the snapshot an edit must pass back, as get_work_management returns it. */
export interface ManagedWorkEntry {
  work: ManagedWork;
  snapshot: string;
}

/** One of the viewer's VerifierImplementations with its yank, if any. */
export interface MyImplementation {
  id: string;
  verifier_contract_id: string;
  stage_key: string;
  version_number: number;
  conformance_status: string;
  /** Each fixture it failed, with the checker's own output; empty unless conformance failed. */
  conformance_failures: ConformanceFailure[];
  created_at: string;
  yank: { yanked_at: string; yanked_by_user_id: string | null; reason_md: string | null } | null;
}

/** One of the viewer's ReviewProtocols with its yank, if any. */
export interface MyReviewProtocol {
  id: string;
  slug: string;
  created_at: string;
  yank: { yanked_at: string; yanked_by_user_id: string | null; reason_md: string | null } | null;
}

/** One of the viewer's authoring uploads: its state and the plan_hash of its last validation. */
export interface MyUpload {
  id: string;
  state: UploadState;
  plan_hash: string | null;
  created_at: string;
}

/** Everything the viewer publishes and manages, newest first in each list. */
export interface MyWork {
  campaigns: ManagedWorkEntry[];
  /** One page of Problems, newest first; `more_problems` when a next page exists. */
  problems: ManagedWorkEntry[];
  more_problems: boolean;
  /** Whether any of the lists goes on past this page (page N shows rows 50(N-1)+1 to 50N of each). */
  more: boolean;
  implementations: MyImplementation[];
  review_protocols: MyReviewProtocol[];
  uploads: MyUpload[];
}

interface YankColumns {
  yanked_at: Date | null;
  yanked_by_user_id: string | null;
  yank_reason_md: string | null;
}

/**
 * The "My work" page's read: the viewer's own Campaigns and Problems as get_work_management shows
 * each (with its snapshot), the VerifierImplementations and ReviewProtocols they published with
 * their yanks, and their uploads. Five queries whatever the number of rows, each one page
 * (`page`, from 1) of 50, newest first.
 */
export async function listMyWork(sql: Sql, viewer: Viewer, options: { page?: number } = {}): Promise<MyWork> {
  const offset = ((options.page ?? 1) - 1) * PROBLEMS_PER_PAGE;
  const page = sql`limit ${PROBLEMS_PER_PAGE + 1} offset ${offset}`;
  const [campaigns, problems, implementations, protocols, uploads] = await Promise.all([
    sql<CampaignRow[]>`
      select * from campaigns where owner_user_id = ${viewer.userId}
      order by created_at desc, id ${page}`,
    sql<ProblemRow[]>`
      select ${problemColumnsSql(sql)} from problems p left join campaigns c on c.id = p.campaign_id
      where p.owner_user_id = ${viewer.userId} order by p.created_at desc, p.id
      ${page}`,
    sql<
      (Omit<MyImplementation, "yank" | "created_at" | "conformance_failures"> &
        YankColumns & { created_at: Date; failures: ConformanceRecordFailure[] })[]
    >`
      select id, verifier_contract_id, stage_key, version_number, conformance->>'status' as conformance_status,
        conformance->'failures' as failures, created_at, yanked_at, yanked_by_user_id, yank_reason_md
      from verifier_implementations where created_by_user_id = ${viewer.userId}
      order by created_at desc, id ${page}`,
    sql<(Omit<MyReviewProtocol, "yank" | "created_at"> & YankColumns & { created_at: Date })[]>`
      select id, slug, created_at, yanked_at, yanked_by_user_id, yank_reason_md
      from review_protocols where publisher_user_id = ${viewer.userId}
      order by created_at desc, id ${page}`,
    sql<(Omit<MyUpload, "created_at"> & { created_at: Date })[]>`
      select id, state, plan_hash, created_at from authoring_uploads where user_id = ${viewer.userId}
      order by created_at desc, id ${page}`,
  ]);
  const logs = await readConformanceFailures(
    sql,
    implementations.filter((row) => row.failures.length > 0).map((row) => row.id),
  );
  const entry = (work: ManagedWork): ManagedWorkEntry => ({ work, snapshot: workSnapshot(work) });
  const more = [campaigns, problems, implementations, protocols, uploads].some(
    (rows) => rows.length > PROBLEMS_PER_PAGE,
  );
  const first = <T>(rows: readonly T[]): T[] => rows.slice(0, PROBLEMS_PER_PAGE);
  return {
    campaigns: first(campaigns).map((row) => entry(managedCampaign(row))),
    problems: first(problems).map((row) => entry(managedProblem(row))),
    more_problems: problems.length > PROBLEMS_PER_PAGE,
    more,
    implementations: first(implementations).map(
      ({ yanked_at, yanked_by_user_id, yank_reason_md, failures, ...row }) => ({
        ...row,
        conformance_failures: conformanceFailures({ ...row, failures }, logs),
        created_at: row.created_at.toISOString(),
        yank: yankOf({ yanked_at, yanked_by_user_id, yank_reason_md }),
      }),
    ),
    review_protocols: first(protocols).map(({ yanked_at, yanked_by_user_id, yank_reason_md, ...row }) => ({
      ...row,
      created_at: row.created_at.toISOString(),
      yank: yankOf({ yanked_at, yanked_by_user_id, yank_reason_md }),
    })),
    uploads: first(uploads).map((row) => ({ ...row, created_at: row.created_at.toISOString() })),
  };
}

function yankOf(row: YankColumns): MyImplementation["yank"] {
  return row.yanked_at === null
    ? null
    : {
        yanked_at: row.yanked_at.toISOString(),
        yanked_by_user_id: row.yanked_by_user_id,
        reason_md: row.yank_reason_md,
      };
}

/** Closed sets of authored work: Campaigns, Problems, authoring uploads and their audit (spec 2, 3, 6.4). */

/**
 * Who may see a piece of work, from least to most visible: `private` (its owner and
 * administrators), `unlisted` (any signed-in user who names it), `listed` (also surfaced).
 */
export const Visibility = { private: "private", unlisted: "unlisted", listed: "listed" } as const;
export type Visibility = (typeof Visibility)[keyof typeof Visibility];

/** A Campaign's status as authored in campaign.json: `draft` (default) or `active`. */
export const CampaignAuthoredStatus = { draft: "draft", active: "active" } as const;
export type CampaignAuthoredStatus = (typeof CampaignAuthoredStatus)[keyof typeof CampaignAuthoredStatus];

/** A live Campaign: active until archive_campaign. */
export const CampaignStatus = { active: "active", archived: "archived" } as const;
export type CampaignStatus = (typeof CampaignStatus)[keyof typeof CampaignStatus];

/** A live Problem: open until archive_problem; an archived Problem takes no new work. */
export const ProblemStatus = { open: "open", archived: "archived" } as const;
export type ProblemStatus = (typeof ProblemStatus)[keyof typeof ProblemStatus];

/**
 * The life of an authoring upload (spec section 3): `requested` with a declared size and hash,
 * `uploaded` once matching bytes arrive, `validated` or `invalid` after validation (revalidating
 * moves between the two), `published` once and for all.
 */
export const UploadState = {
  requested: "requested",
  uploaded: "uploaded",
  validated: "validated",
  invalid: "invalid",
  published: "published",
} as const;
export type UploadState = (typeof UploadState)[keyof typeof UploadState];

/** What publishing does to a package's Campaign (spec section 3, "Campaign actions"). */
export const CampaignAction = {
  create: "create",
  reuse: "reuse",
  update: "update",
  conflict: "conflict",
} as const;
export type CampaignAction = (typeof CampaignAction)[keyof typeof CampaignAction];

/** The kinds of record the work audit history names (spec 6.4). */
export const WorkSubjectKind = {
  campaign: "campaign",
  problem: "problem",
  skill_version: "skill_version",
  review_protocol: "review_protocol",
  verifier_contract: "verifier_contract",
  verifier_implementation: "verifier_implementation",
  work_draft: "work_draft",
  publication_request: "publication_request",
} as const;
export type WorkSubjectKind = (typeof WorkSubjectKind)[keyof typeof WorkSubjectKind];

/**
 * A work draft's status (docs/work-drafts.md): `editing` until its current version is prepared,
 * then `prepared` (materialized as work) or `invalid` (lint errors or conflicts), and `published`
 * once its work is raised to unlisted or listed. Every save returns it to `editing`.
 */
export const DraftStatus = {
  editing: "editing",
  invalid: "invalid",
  prepared: "prepared",
  published: "published",
} as const;
export type DraftStatus = (typeof DraftStatus)[keyof typeof DraftStatus];

/** A publication request's status: `pending`, then once and for all one of the other three. */
export const PublicationRequestStatus = {
  pending: "pending",
  approved: "approved",
  rejected: "rejected",
  withdrawn: "withdrawn",
} as const;
export type PublicationRequestStatus =
  (typeof PublicationRequestStatus)[keyof typeof PublicationRequestStatus];

/** How a BENCHMARK problem's metric is read (problem.json `benchmark.direction`). */
export const MetricDirection = { maximize: "maximize", minimize: "minimize" } as const;
export type MetricDirection = (typeof MetricDirection)[keyof typeof MetricDirection];

/** The score release modes of a sealed evaluation (spec 2.3). */
export const ScoreReleaseMode = { immediate: "immediate", final_only: "final_only" } as const;
export type ScoreReleaseMode = (typeof ScoreReleaseMode)[keyof typeof ScoreReleaseMode];

/** How others' entries are treated in a sealed evaluation (spec 2.3 `entries`). */
export const EntriesMode = { collaborative: "collaborative", independent: "independent" } as const;
export type EntriesMode = (typeof EntriesMode)[keyof typeof EntriesMode];

/** An immutable final-entry event: an entry recorded, or a nomination (spec 6.3). */
export const EntryEventKind = { entry: "entry", nomination: "nomination" } as const;
export type EntryEventKind = (typeof EntryEventKind)[keyof typeof EntryEventKind];

import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ActionCounts, ReconciledProblem } from "./authoring-results.ts";
import type { ShardLimits } from "./plan-shards.ts";

/**
 * `<dir>/.svc/publish-state.json`: what `svc draft` has done, written after every step so an
 * interrupted run resumes where it stopped. A shard moves planned -> requested -> uploaded ->
 * validated -> published, or ends invalid. A step that fails keeps the status of the last step
 * that succeeded and records the error. A rerun skips a published shard whose archive hash is
 * unchanged, resumes an uploaded or validated one from its upload, and starts the rest again
 * (a requested upload's URL may have expired). The file is trusted for one server only.
 */
export const ShardStatus = {
  planned: "planned",
  requested: "requested",
  uploaded: "uploaded",
  validated: "validated",
  published: "published",
  invalid: "invalid",
} as const;
export type ShardStatus = (typeof ShardStatus)[keyof typeof ShardStatus];

/** One problem as the summary reports it. */
export interface ProblemOutcome {
  slug: string;
  action: string;
  problem_id: string | null;
  problem_revision_id: string | null;
  revision_number: number | null;
}

/** The ids a publication created or reused. */
export interface PublishedIds {
  campaign_id: string | null;
  skill_version_ids: string[];
  verifier_contract_ids: string[];
  verifier_implementation_ids: string[];
  review_protocol_ids: string[];
}

export interface ShardState {
  index: number;
  /** sha256 of the shard's deterministic ZIP. */
  content_hash: string;
  size_bytes: number;
  slugs: string[];
  status: ShardStatus;
  /** Calls made for this shard in the last run that touched it, retries included. */
  attempts: number;
  upload_id: string | null;
  upload_url: string | null;
  plan_hash: string | null;
  counts: ActionCounts | null;
  campaign: { slug: string; action: string; campaign_id?: string } | null;
  reconciliation: ReconciledProblem[] | null;
  problems: ProblemOutcome[] | null;
  ids: PublishedIds | null;
  error: { code: string; message: string } | null;
  updated_at: string;
}

export interface PublishState {
  version: 1;
  server: string;
  /** plan_hash of the whole package when the shards were planned. */
  package_plan_hash: string;
  limits: ShardLimits;
  shards: ShardState[];
  updated_at: string;
}

export function publishStatePath(dir: string): string {
  return join(dir, ".svc", "publish-state.json");
}

/**
 * Reads the state file; null when there is none, or when it is unreadable or of another version
 * (a damaged file only costs a replay, which publishes nothing new).
 */
export async function readPublishState(dir: string): Promise<PublishState | null> {
  let text: string;
  try {
    text = await readFile(publishStatePath(dir), "utf8");
  } catch {
    return null;
  }
  try {
    const value = JSON.parse(text) as Partial<PublishState>;
    if (value.version !== 1 || typeof value.server !== "string" || !Array.isArray(value.shards)) return null;
    return value as PublishState;
  } catch {
    return null;
  }
}

/** Writes the state atomically: a temporary file in the same directory, then a rename over the old one. */
export async function writePublishState(dir: string, state: PublishState): Promise<void> {
  await writeJsonAtomic(publishStatePath(dir), state);
}

/** Writes JSON so a reader sees the old file or the new one, never half of either. */
export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  const folder = join(path, "..");
  await mkdir(folder, { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(value, null, 2)}\n`);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

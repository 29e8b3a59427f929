import type { PublishedProblem } from "@svc/schemas";
import type { Publication, ReconciledProblem } from "../client/authoring-results.ts";
import { driveShard } from "../client/publish-engine/drive-publish.ts";
import { reviewedPlanHash } from "../client/publish-engine/reviewed-plan-hash.ts";
import type { ShardState } from "../client/publish-state.ts";
import type { ServiceClient } from "../client/service-client.ts";
import type { RetryOptions } from "../client/with-retries.ts";
import type { FileTree } from "../tree/file-tree.ts";
import type { PackageValidation, ValidatedShard } from "./validate-package.ts";

/** A published problem with the action its reconciliation named. */
export type PublishedRow = PublishedProblem;

export type PublishOutcome =
  | { ok: true; campaignId: string | null; problems: PublishedRow[] }
  | { ok: false; code: string; message: string };

/**
 * Publishes a package the service validated (the GitHub App and the Action), shard by shard,
 * through the publish engine `svc draft` uses, with the plan_hash the caller reviewed: the App
 * the one its check run reported, the Action its own lint's. With one shard (most packages) that
 * plan_hash is the shard's; with several, it must be the package's local lint plan_hash (else
 * nothing is sent) and each shard is reviewed with the local lint of exactly its files. The
 * engine publishes an upload only after a validation whose plan_hash equals the reviewed one, and
 * refuses with `stale_plan_hash` otherwise. The first shard publishes the upload just validated;
 * each later one is validated again first (the earlier ones changed the state it was checked
 * against). A `stale_*` refusal earns one fresh upload of that shard; a second one, an invalid
 * validation or a conflict stops the package (shards published before stay published).
 */
export async function publishValidated(
  client: ServiceClient,
  pkg: { tree: FileTree; validated: PackageValidation },
  planHashes: { reviewed: string; linted: string },
  retry?: RetryOptions,
): Promise<PublishOutcome> {
  const { shards } = pkg.validated;
  if (shards.length > 1 && planHashes.linted !== planHashes.reviewed) {
    return {
      ok: false,
      code: "stale_plan_hash",
      message: `the reviewed plan_hash is ${planHashes.reviewed}, but the files plan to ${planHashes.linted}; nothing was published`,
    };
  }
  const problems: PublishedRow[] = [];
  let campaignId: string | null = null;
  for (const shard of shards) {
    const state = shardState(shard);
    const outcome = await driveShard({
      client,
      tree: pkg.tree,
      paths: shard.paths,
      state,
      reviewedPlanHash: await reviewedPlanHash(pkg.tree, shard, shards.length, planHashes.reviewed),
      resumed: false,
      retry,
    });
    if (!outcome.ok) {
      const failure = outcome.failure;
      return failure.kind === "invalid"
        ? { ok: false, code: "upload_invalid", message: state.error?.message ?? "invalid" }
        : { ok: false, code: "code" in failure ? failure.code : failure.kind, message: failure.message };
    }
    if (!outcome.publication) continue;
    if (shard.plan_hash !== state.plan_hash) shard.plan_hash = state.plan_hash;
    campaignId ??= outcome.publication.campaign_id ?? null;
    problems.push(...rows(outcome.publication, state.reconciliation ?? []));
  }
  problems.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  return { ok: true, campaignId, problems };
}

/** The engine's record of a shard validatePackage uploaded and validated in this run. */
function shardState(shard: ValidatedShard): ShardState {
  const reconciliation = shard.validation.reconciliation;
  return {
    index: shard.index,
    // Unknown here: the archive is packed again only for a fresh upload, from the same tree.
    content_hash: "",
    size_bytes: 0,
    slugs: shard.slugs,
    status: shard.index === 0 ? "validated" : "uploaded",
    attempts: 0,
    upload_id: shard.upload_id,
    upload_url: null,
    plan_hash: shard.plan_hash,
    counts: reconciliation?.counts ?? null,
    campaign: reconciliation?.campaign ?? null,
    reconciliation: reconciliation?.problems ?? null,
    problems: null,
    ids: null,
    error: null,
    updated_at: new Date().toISOString(),
  };
}

function rows(publication: Publication, reconciled: readonly ReconciledProblem[]): PublishedRow[] {
  const actions = new Map(reconciled.map((p) => [p.slug, p.action]));
  return publication.problems.map((p) => ({ ...p, action: actions.get(p.slug) ?? "noop" }));
}

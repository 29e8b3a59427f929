import type { Publication, PublishedProblem, ReconciledProblem } from "../client/authoring-results.ts";
import { publishUpload, validateUpload } from "../client/authoring-steps.ts";
import { ServiceCallError } from "../client/service-call-error.ts";
import type { ServiceClient } from "../client/service-client.ts";
import { type RetryOptions, withRetries } from "../client/with-retries.ts";
import type { PackageValidation } from "./validate-package.ts";

/** A published problem with the action its reconciliation named. */
export type PublishedRow = PublishedProblem;

export type PublishOutcome =
  | { ok: true; campaignId: string | null; problems: PublishedRow[] }
  | { ok: false; code: string; message: string };

/** publish_authoring_upload's codes that mean "validate again" (spec section 7). */
const STALE_CODES: ReadonlySet<string> = new Set(["stale_plan_hash", "stale_server_state"]);

/**
 * Publishes a package the service validated, shard by shard, requiring the plan_hash its check
 * reported. With one shard (most packages) the reported plan_hash itself goes to
 * publish_authoring_upload, so files that plan differently are refused by the service
 * (`stale_plan_hash`). With several, each shard's upload has its own plan, so the package's lint
 * plan_hash must equal the reported one before anything is sent. A later shard is validated again
 * just before it is published (the earlier ones changed the state it was checked against). A
 * `stale_*` refusal earns one fresh validation and publication of that shard; a second one, an
 * invalid validation or a conflict stops the package (shards published before stay published).
 */
export async function publishValidated(
  client: ServiceClient,
  validated: PackageValidation,
  planHashes: { reported: string; linted: string },
  retry?: RetryOptions,
): Promise<PublishOutcome> {
  const single = validated.shards.length === 1;
  if (!single && planHashes.linted !== planHashes.reported) {
    return {
      ok: false,
      code: "stale_plan_hash",
      message: `the check reported plan_hash ${planHashes.reported}, but the files plan to ${planHashes.linted}`,
    };
  }
  const problems: PublishedRow[] = [];
  let campaignId: string | null = null;
  for (const shard of validated.shards) {
    let reconciled = shard.validation.reconciliation?.problems ?? [];
    const revalidate = async (): Promise<string | null> => {
      const validation = await withRetries(() => validateUpload(client, shard.upload_id), retry);
      const conflicts = validation.reconciliation?.problems.filter((p) => p.action === "conflict") ?? [];
      if (
        !validation.valid ||
        conflicts.length > 0 ||
        validation.reconciliation?.campaign?.action === "conflict"
      ) {
        return [
          ...validation.errors.map((e) => `${e.file} ${e.path} [${e.code}] ${e.message}`),
          ...conflicts.map((c) => `conflict ${c.slug}: ${c.reason ?? ""}`),
        ].join("; ");
      }
      reconciled = validation.reconciliation?.problems ?? [];
      shard.plan_hash = validation.plan_hash;
      return null;
    };
    try {
      if (shard.index > 0) {
        const invalid = await revalidate();
        if (invalid !== null) return { ok: false, code: "upload_invalid", message: invalid };
      }
      const planHash = () => (single ? planHashes.reported : shard.plan_hash!);
      let publication: Publication;
      try {
        publication = await withRetries(() => publishUpload(client, shard.upload_id, planHash()), retry);
      } catch (error) {
        if (!(error instanceof ServiceCallError) || !STALE_CODES.has(error.code)) throw error;
        const invalid = await revalidate();
        if (invalid !== null) return { ok: false, code: "upload_invalid", message: invalid };
        publication = await withRetries(() => publishUpload(client, shard.upload_id, planHash()), retry);
      }
      campaignId ??= publication.campaign_id ?? null;
      problems.push(...rows(publication, reconciled));
    } catch (error) {
      if (!(error instanceof ServiceCallError)) throw error;
      return { ok: false, code: error.code, message: error.message };
    }
  }
  problems.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  return { ok: true, campaignId, problems };
}

function rows(publication: Publication, reconciled: readonly ReconciledProblem[]): PublishedRow[] {
  const actions = new Map(reconciled.map((p) => [p.slug, p.action]));
  return publication.problems.map((p) => ({ ...p, action: actions.get(p.slug) ?? "noop" }));
}

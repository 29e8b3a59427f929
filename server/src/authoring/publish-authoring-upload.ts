import type { PublishResult, Reconciliation } from "@svc/schemas";
import { Capability, Role, Scope, UploadState } from "@svc/schemas";
import { isUniqueViolation } from "../core/db/is-unique-violation.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { withSpan } from "../core/tracing/tracing.ts";
import { type LiveRole, liveRole } from "../users/live-role.ts";
import type { Principal } from "../users/principal.ts";
import { requireScope } from "../users/require-scope.ts";
import { recordWorkAudit } from "../work/record-work-audit.ts";
import { type AuthoringUpload, findOwnUpload, lockOwnUpload } from "./authoring-upload.ts";
import { isCustomImage } from "./image-statuses.ts";
import { publishCampaign } from "./publish-campaign.ts";
import type { PublishContext } from "./publish-context.ts";
import { publishProblems } from "./publish-problems.ts";
import { publishReviewProtocols } from "./publish-review-protocols.ts";
import { publishSkills } from "./publish-skills.ts";
import { publishVerifierContracts } from "./publish-verifier-contracts.ts";
import { publishVerifierImplementations } from "./publish-verifier-implementations.ts";
import { type LiveRead, readLiveState, staleDifferences } from "./read-live-state.ts";
import { readUploadTree } from "./read-upload-tree.ts";
import { requireUnreviewed } from "./require-unreviewed.ts";
import { storePackageBytes } from "./store-package-bytes.ts";
import { sharedValidatedTrees } from "./validated-trees.ts";

/**
 * publish_authoring_upload (spec 4.1): executes the reconciliation validation stored, in one
 * transaction that first locks the upload (so concurrent publications of one upload create one
 * set of records; the others return the recorded result) and then the live Campaign and Problems
 * the plan names, and refuses with stale_server_state when any differs from the validation's
 * snapshot. Creates in dependency order: SkillVersions, ReviewProtocols, VerifierContracts,
 * VerifierImplementations, the Campaign, then each Problem and its revision. The caller publishes
 * as themselves, an administrator too: what is created is theirs, and what exists keeps its owner.
 */
export async function publishAuthoringUpload(
  services: Services,
  principal: Principal,
  input: { upload_id: string; plan_hash: string },
): Promise<PublishResult> {
  requireScope(principal, Scope.contribute);
  return await publishUpload(services, principal.user.id, input);
}

/** Who acts when a publication is made on an owner's behalf (prepare_work_draft by an administrator). */
export interface PublishActor {
  /** The user the work audit names; the upload's owner when absent. */
  actorUserId?: string;
  /** The actor is a live administrator: the owner needs no author role of their own. */
  actorIsAdministrator?: boolean;
  /** The publication is an administrator's approval of a publication request. */
  reviewed?: boolean;
}

/**
 * The publication of `userId`'s own validated upload: what is created belongs to `userId`. The
 * one path publish_authoring_upload and prepare_work_draft share.
 */
export async function publishUpload(
  services: Services,
  userId: string,
  input: { upload_id: string; plan_hash: string },
  actor: PublishActor = {},
): Promise<PublishResult> {
  return await withSpan("publish upload", { "svc.upload_id": input.upload_id }, () =>
    publishUploadNow(services, userId, input, actor),
  );
}

async function publishUploadNow(
  services: Services,
  userId: string,
  input: { upload_id: string; plan_hash: string },
  actor: PublishActor,
): Promise<PublishResult> {
  const checkPublisher = (role: LiveRole) => {
    if (!actor.actorIsAdministrator) requirePublisher(role);
  };
  checkPublisher(await liveRole(services.sql, userId));

  // Outside the transaction: the recorded result of a finished publication.
  const upload = await findOwnUpload(services.sql, userId, input.upload_id);
  const recorded = publishable(upload, input.plan_hash);
  if (recorded) return recorded;
  // The package bytes the records will point at are stored while the transaction reads and writes
  // (from the tree this process validated, else unpacked on the validation pool; the puts wait on
  // the disk), and the transaction waits for them before it commits: no record is ever committed
  // without its bytes. They are content-addressed, so storing them twice is harmless. A first
  // publication of 300 problems spent 0.2-0.4 s here before its transaction began.
  const validated = sharedValidatedTrees().take(upload.content_hash);
  const stored = storePackageBytes(
    services.blobs,
    async () => validated ?? (await readUploadTree(services.blobs, upload.content_hash)),
    upload.validation!.plan!,
  );
  // Met where the transaction awaits it, or below; never an unhandled rejection meanwhile.
  stored.catch(() => {});

  try {
    return await services.sql.begin(async (tx) => {
      const locked = await lockOwnUpload(tx, upload);
      const already = publishable(locked, input.plan_hash);
      if (already) return already;
      // Version numbers and slugs of a publisher's skills, protocols, contracts and implementations
      // are sequential per publisher: one publication per publisher at a time assigns them.
      await tx`select pg_advisory_xact_lock(hashtextextended(${`svc.publish:${userId}`}, 0))`;
      const role = await liveRole(tx, userId);
      checkPublisher(role);
      // The locked row's validation: a revalidation may have replaced it (with the same plan_hash).
      const validation = locked.validation!;
      const reconciliation = validation.reconciliation!;
      const plan = validation.plan!;
      const live = await readLiveState(tx, plan, { lock: true });
      const differences = staleDifferences(validation.snapshot!, live.snapshot);
      if (differences.length > 0) throw stale(differences);
      requireAuthority(role, userId, live, reconciliation, plan);
      if (!actor.reviewed && !actor.actorIsAdministrator && !role.roles.includes(Role.administrator)) {
        await requireUnreviewed(tx, live, reconciliation);
      }

      const ctx: PublishContext = { tx, userId, uploadId: locked.id, now: services.clock(), plan, audit: [] };
      const skills = await publishSkills(ctx);
      const protocols = await publishReviewProtocols(ctx, skills);
      const contracts = await publishVerifierContracts(ctx, protocols);
      const implementations = await publishVerifierImplementations(ctx, contracts);
      const campaign = await publishCampaign(ctx, reconciliation, live);
      const problems = await publishProblems(ctx, reconciliation.problems, live.problems, campaign.bySlug, {
        skills,
        contracts,
      });
      await recordWorkAudit(tx, actor.actorUserId ?? userId, locked.id, ctx.audit, ctx.now);
      await stored;

      const result: PublishResult = {
        ...(campaign.own
          ? {
              campaign_id: campaign.own.campaign_id,
              campaign: {
                campaign_id: campaign.own.campaign_id,
                slug: campaign.own.slug,
                action: campaign.own.action,
                status: campaign.own.status,
                visibility: campaign.own.visibility,
              },
            }
          : {}),
        problems,
        skill_version_ids: unique(skills.values()),
        verifier_contract_ids: unique(contracts.values()),
        verifier_implementation_ids: unique(implementations),
        review_protocol_ids: unique(protocols.values()),
        counts: reconciliation.counts,
        reconciliation,
      };
      await tx`
        update authoring_uploads set state = ${UploadState.published}, published_at = ${ctx.now},
          publish_result = ${tx.json(result as never)}
        where id = ${locked.id}`;
      return result;
    });
  } catch (error) {
    // Two publications creating the same slug: the second waits on the unique index, then fails.
    if (isUniqueViolation(error, "problems_slug_key") || isUniqueViolation(error, "campaigns_slug_key")) {
      throw stale(["a campaign or problem this upload creates was created by another publication meanwhile"]);
    }
    throw error;
  } finally {
    // A transaction that ended early (a refusal, the recorded result) leaves no put running.
    await stored.catch(() => {});
  }
}

/**
 * The recorded result when the upload is already published with this plan hash; throws when it
 * cannot be published; undefined when publication may go ahead.
 */
function publishable(upload: AuthoringUpload, planHash: string): PublishResult | undefined {
  const { id, state } = upload;
  if (state === UploadState.requested || state === UploadState.uploaded) {
    throw new ServiceError(
      "upload_not_ready",
      `upload ${id} is ${state}: ${state === UploadState.requested ? "PUT the archive, then " : ""}validate it with validate_authoring_upload before publishing`,
      { upload_id: id, state },
    );
  }
  if (state === UploadState.invalid) {
    const validation = upload.validation!;
    const conflicts = [
      ...(validation.reconciliation?.campaign?.action === "conflict"
        ? [validation.reconciliation.campaign]
        : []),
      ...(validation.reconciliation?.problems.filter((p) => p.action === "conflict") ?? []),
    ];
    throw new ServiceError(
      "upload_invalid",
      `upload ${id} failed validation with ${validation.errors.length} error(s) and ${conflicts.length} conflict(s): fix them, upload again and validate`,
      { upload_id: id, errors: validation.errors, conflicts },
    );
  }
  if (upload.plan_hash !== planHash) {
    throw new ServiceError(
      "stale_plan_hash",
      `plan_hash ${planHash} is not the plan_hash ${upload.plan_hash} validation stored for upload ${id}: the package changed; upload and validate it again`,
      { upload_id: id, expected_plan_hash: upload.plan_hash },
    );
  }
  if (state === UploadState.published) return upload.publish_result!;
  return undefined;
}

function requirePublisher(role: LiveRole): void {
  if (!role.roles.includes(Role.author) && !role.roles.includes(Role.administrator)) {
    throw new ServiceError(
      "forbidden",
      "publishing needs the author capability (an operator grants it) or the administrator role; you can still upload and validate",
      { capability: Capability.author },
    );
  }
}

/**
 * Checks again, live, the authority the validation relied on: acting on another user's Campaign
 * or Problem needs the administrator role now (spec 5.4: revoked authority is rechecked at
 * publication), and a custom image needs custom_verifier now.
 */
function requireAuthority(
  role: LiveRole,
  userId: string,
  live: LiveRead,
  reconciliation: Reconciliation,
  plan: PublishContext["plan"],
): void {
  const others = [
    ...[...live.campaigns.values()]
      .filter((c) => c.owner_user_id !== userId)
      .map((c) => `campaign ${c.slug}`),
    ...reconciliation.problems
      .filter((p) => p.action !== "create" && live.problems.get(p.slug)?.owner_user_id !== userId)
      .map((p) => `problem ${p.slug}`),
  ];
  if (others.length > 0 && !role.roles.includes(Role.administrator)) {
    throw new ServiceError(
      "forbidden",
      `${others.join(", ")} belong to another user, and publishing to them needs the administrator role, which you no longer hold`,
      { role: Role.administrator },
    );
  }
  const custom = Object.values(plan.verifier_implementations).some((i) => isCustomImage(i.runtime.image_ref));
  if (custom && !role.capabilities.includes(Capability.custom_verifier)) {
    throw new ServiceError(
      "forbidden",
      "the package names a custom sandbox image, which needs the custom_verifier capability; it was revoked since validation",
      { capability: Capability.custom_verifier },
    );
  }
}

function stale(differences: string[]): ServiceError {
  return new ServiceError(
    "stale_server_state",
    `live state changed since validation (${differences.join("; ")}): validate the upload again, then publish`,
    { differences },
  );
}

function unique(ids: Iterable<string>): string[] {
  return [...new Set(ids)];
}

import type { Sealing } from "@svc/schemas";
import type { Binding } from "./check-bindings.ts";
import type { LintContext } from "./lint-context.ts";

/**
 * Lint pass 5, sealing: the policy is required exactly when a sealed slot is bound; its dates are
 * ordered (closing <= sealed_until; a final-only release between closing and sealed_until) and in
 * the future; independent entries need a cutoff. Whether sealed bytes appear in the clear is a
 * question about the whole package: checkSealedBytesStaySealed, once all problems are bound.
 *
 * With a published Contract (a vct_ id) lint cannot know which slots are sealed: a policy that is
 * present gets its dates checked, and whether one is needed is left to the service's validation.
 */
export async function checkSealing(
  ctx: LintContext,
  problemFile: string,
  sealing: Sealing | undefined,
  bindings: Binding[],
  publishedContract = false,
): Promise<void> {
  const sealed = bindings.filter((b) => b.sealed);
  if (publishedContract) {
    if (sealing) checkDates(ctx, problemFile, sealing);
    return;
  }
  if (sealed.length === 0) {
    if (sealing) {
      ctx.error(
        problemFile,
        "/sealing",
        "binding_error",
        "sealing applies only when a reference file binds a slot the contract declares sealed; remove it or bind a sealed slot",
      );
    }
    return;
  }
  if (!sealing) {
    ctx.error(
      problemFile,
      "/sealing",
      "binding_error",
      `sealed slot "${sealed[0]!.key}" is bound, so problem.json needs "sealing" (sealed_until, score_release, submission_limit)`,
    );
  } else {
    checkDates(ctx, problemFile, sealing);
  }
}

function checkDates(ctx: LintContext, file: string, sealing: Sealing): void {
  const now = ctx.now.getTime();
  const time = (value: string) => Date.parse(value);
  const sealedUntil = time(sealing.sealed_until);
  const closes = sealing.submission_closes_at === null ? null : time(sealing.submission_closes_at);
  const { mode, release_at } = sealing.score_release;
  const err = (path: string, message: string) => ctx.error(file, path, "schema_violation", message);

  if (sealedUntil <= now) err("/sealing/sealed_until", "sealed_until must be in the future at publication");
  if (closes !== null) {
    if (closes <= now)
      err("/sealing/submission_closes_at", "submission_closes_at must be in the future at publication");
    if (closes > sealedUntil) {
      err("/sealing/submission_closes_at", "submission_closes_at must not be later than sealed_until");
    }
  }
  if (mode === "immediate" && release_at !== null) {
    err(
      "/sealing/score_release/release_at",
      'an "immediate" score release has release_at null; remove the date',
    );
  }
  if (mode === "final_only") {
    if (release_at === null) {
      err(
        "/sealing/score_release/release_at",
        'a "final_only" score release needs release_at: when scores are released',
      );
    } else {
      const release = time(release_at);
      if (release <= now)
        err("/sealing/score_release/release_at", "release_at must be in the future at publication");
      if (closes !== null && release < closes) {
        err("/sealing/score_release/release_at", "release_at must not be earlier than submission_closes_at");
      }
      if (release > sealedUntil)
        err("/sealing/score_release/release_at", "release_at must not be later than sealed_until");
    }
  }
  if (sealing.entries === "independent" && sealing.submission_closes_at === null) {
    err(
      "/sealing/entries",
      '"entries": "independent" needs submission_closes_at: entries stay private until that cutoff',
    );
  }
}

/**
 * No sealed bytes appear anywhere in the package outside a sealed slot (a fixture, a public
 * reference, a statement, a skill), where they would be published in the clear. The same bytes
 * bound in sealed slots of several problems are allowed: spec 2.3 has revisions with the same
 * sealed dataset share one evaluation.
 */
export async function checkSealedBytesStaySealed(ctx: LintContext, sealed: Binding[]): Promise<void> {
  const bySize = new Map<number, Binding[]>();
  for (const binding of sealed)
    bySize.set(binding.size_bytes, [...(bySize.get(binding.size_bytes) ?? []), binding]);
  const sealedFiles = new Set(sealed.map((b) => b.file));
  for (const path of ctx.paths) {
    if (sealedFiles.has(path)) continue;
    const candidates = bySize.get(ctx.tree.size(path) ?? -1);
    if (!candidates) continue;
    const hash = await ctx.hash(path);
    const twin = candidates.find((b) => b.content_hash === hash);
    if (twin) {
      ctx.error(
        path,
        "",
        "binding_error",
        `holds the same bytes as sealed reference ${twin.file}; sealed bytes must appear nowhere outside a sealed slot, where they would be published in the clear: remove this copy`,
      );
    }
  }
}

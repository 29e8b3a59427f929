import type { CampaignFile, ProblemFile } from "@svc/schemas";
import type { LintContext } from "./lint-context.ts";
import type { PackageLayout } from "./package-layout.ts";

/** A problem package whose problem.json passed its schema (defaults filled in). */
export interface ProblemEntry {
  /** "" for a standalone package, "problems/<dir>/" inside a campaign. */
  prefix: string;
  problem: ProblemFile;
  statementMd: string;
  /** The campaign the problem belongs to: its folder's, or the one problem.json names. */
  campaignSlug: string | null;
}

/**
 * Lint pass 1: campaign.json and every problem.json against their schemas, and statement.md.
 * `problems` passed; `failed` holds the prefixes of the problems that did not, whose other files
 * are still checked where they do not depend on problem.json (lint-tree.ts).
 */
export async function checkProblemFiles(
  ctx: LintContext,
  layout: PackageLayout,
): Promise<{ campaign: CampaignFile | null; problems: ProblemEntry[]; failed: string[] }> {
  const campaign =
    layout.campaignPrefix === null
      ? null
      : ((await ctx.schemaFile<CampaignFile>("campaign.json", "campaign")) ?? null);
  const problems: ProblemEntry[] = [];
  const failed: string[] = [];
  const slugs = new Map<string, string>();
  for (const prefix of layout.problemPrefixes) {
    const file = `${prefix}problem.json`;
    const problem = await readProblemFile(ctx, file);
    const statementFile = `${prefix}statement.md`;
    const statementMd = ctx.has(statementFile) ? await ctx.text(statementFile) : undefined;
    if (statementMd === undefined) {
      ctx.error(
        statementFile,
        "",
        "missing_file",
        "statement.md is required: write the task statement in Markdown",
      );
    } else if (statementMd.trim() === "") {
      ctx.error(
        statementFile,
        "",
        "schema_violation",
        "statement.md is empty: write the task statement in Markdown",
      );
    }
    if (!problem || statementMd === undefined) {
      failed.push(prefix);
      continue;
    }

    if (layout.kind === "campaign" && campaign && problem.campaign && problem.campaign !== campaign.slug) {
      ctx.error(
        file,
        "/campaign",
        "schema_violation",
        `"campaign" is "${problem.campaign}" but this problem sits in campaign "${campaign.slug}"; remove the key or make it "${campaign.slug}"`,
      );
    }
    const other = slugs.get(problem.slug);
    if (other !== undefined) {
      ctx.error(
        file,
        "/slug",
        "schema_violation",
        `slug "${problem.slug}" is already used by ${other}; slugs identify problems, give each its own`,
      );
      failed.push(prefix);
      continue;
    }
    slugs.set(problem.slug, file);
    const campaignSlug = layout.kind === "campaign" ? (campaign?.slug ?? null) : (problem.campaign ?? null);
    problems.push({ prefix, problem, statementMd, campaignSlug });
  }
  return { campaign, problems, failed };
}

/** Sealing fields the service derives; an author who writes one gets told so, not "unknown key". */
const DERIVED_SEALING = ["unsealed_at", "release_event", "evaluation_id"] as const;

async function readProblemFile(ctx: LintContext, file: string): Promise<ProblemFile | undefined> {
  const read = await ctx.json(file);
  if (!read.ok) return undefined;
  const value = structuredClone(read.value) as { sealing?: Record<string, unknown> };
  let derived = false;
  if (value && typeof value === "object" && value.sealing && typeof value.sealing === "object") {
    for (const key of DERIVED_SEALING) {
      if (key in value.sealing) {
        derived = true;
        ctx.error(
          file,
          `/sealing/${key}`,
          "schema_violation",
          `"${key}" is derived: the service sets it, authors never write it; remove it`,
        );
        delete value.sealing[key];
      }
    }
  }
  const problem = ctx.schemaValue<ProblemFile>(file, "", value, "problem");
  return derived ? undefined : problem;
}

import type { LintContext } from "./lint-context.ts";

/**
 * Where things are in a package. A campaign folder has `campaign.json` at its root and one
 * problem package per directory under `problems/`; a standalone package has `problem.json` at
 * its root. Paths here are package-relative; a prefix is "" (the root) or "problems/<dir>/".
 */
export interface PackageLayout {
  kind: "campaign" | "problem";
  /** "" for a campaign folder's root; null for a standalone package. */
  campaignPrefix: string | null;
  /** One prefix per problem package, in byte order. */
  problemPrefixes: string[];
}

/** Files a problem package or a campaign root may hold at its top level, besides `.py` checkers. */
const PROBLEM_FILES = new Set([
  "problem.json",
  "statement.md",
  "verifier-contract.json",
  "review-protocol.json",
  "verifier-implementation.json",
]);
const CAMPAIGN_FILES = new Set([
  "campaign.json",
  "verifier-contract.json",
  "review-protocol.json",
  "verifier-implementation.json",
]);
/** Directories whose contents the package format gives meaning to. */
const PROBLEM_DIRS = new Set(["skills", "reference", "fixtures"]);
const CAMPAIGN_DIRS = new Set(["skills", "fixtures", "problems"]);

/** Finds the packages in a tree and reports files that have no place in the format. */
export function readPackageLayout(ctx: LintContext): PackageLayout | undefined {
  const paths = ctx.paths;
  if (ctx.has("campaign.json")) {
    const problemDirs = new Set<string>();
    for (const path of paths) {
      const parts = path.split("/");
      if (parts[0] !== "problems") continue;
      if (parts.length === 2) {
        ctx.error(
          path,
          "",
          "unknown_file",
          "a file directly under problems/ belongs to no problem; move it into problems/<slug>/ or delete it",
        );
      } else {
        problemDirs.add(`problems/${parts[1]}/`);
      }
    }
    if (ctx.has("problem.json")) {
      ctx.error(
        "problem.json",
        "",
        "unknown_file",
        "a campaign folder keeps each problem in problems/<slug>/problem.json; move this file there",
      );
    }
    for (const path of paths) {
      if (!path.startsWith("problems/")) classifyTopLevel(ctx, path, "", CAMPAIGN_FILES, CAMPAIGN_DIRS);
    }
    const problemPrefixes = [...problemDirs].sort();
    for (const prefix of problemPrefixes) {
      if (!ctx.has(`${prefix}problem.json`)) {
        ctx.error(
          `${prefix}problem.json`,
          "",
          "missing_file",
          `${prefix} has no problem.json; every directory under problems/ is a problem package`,
        );
      }
      for (const path of ctx.under(prefix)) classifyTopLevel(ctx, path, prefix, PROBLEM_FILES, PROBLEM_DIRS);
    }
    if (problemPrefixes.length === 0) {
      ctx.note(
        "campaign.json",
        "",
        "ignored_file",
        "this campaign has no problems yet: add problems/<slug>/",
      );
    }
    return {
      kind: "campaign",
      campaignPrefix: "",
      problemPrefixes: problemPrefixes.filter((p) => ctx.has(`${p}problem.json`)),
    };
  }
  if (!ctx.has("problem.json")) {
    ctx.error(
      "problem.json",
      "",
      "missing_file",
      "a package needs problem.json at its root (or campaign.json for a campaign folder); run `svc init` to scaffold one",
    );
    return undefined;
  }
  for (const path of paths) classifyTopLevel(ctx, path, "", PROBLEM_FILES, PROBLEM_DIRS);
  return { kind: "problem", campaignPrefix: null, problemPrefixes: [""] };
}

/** Notes files the format ignores; rejects misplaced files inside the format's own directories. */
function classifyTopLevel(
  ctx: LintContext,
  path: string,
  prefix: string,
  files: ReadonlySet<string>,
  dirs: ReadonlySet<string>,
): void {
  const rest = path.slice(prefix.length);
  const slash = rest.indexOf("/");
  if (slash === -1) {
    if (files.has(rest) || rest.endsWith(".py")) return;
    if (rest === "context.md" || rest === "changelog.md") {
      ctx.note(path, "", "not_published", `${rest} is for authors only and is never published`);
      return;
    }
    if (rest === "campaign.json") {
      ctx.error(
        path,
        "",
        "unknown_file",
        "campaign.json belongs at the root of a campaign folder; remove it here",
      );
      return;
    }
    ctx.note(path, "", "ignored_file", `${rest} is not part of the package format and is ignored`);
    return;
  }
  const dir = rest.slice(0, slash);
  const inner = rest.slice(slash + 1);
  if (dir === "problems" && prefix === "") return; // classified per problem
  if (!dirs.has(dir)) {
    ctx.note(path, "", "ignored_file", `${dir}/ is not part of the package format and is ignored`);
    return;
  }
  if (dir === "skills" && !inner.includes("/")) {
    ctx.error(
      path,
      "",
      "unknown_file",
      "a skill lives in its own directory: move this file to skills/<name>/",
    );
  }
  if (dir === "reference" && inner.includes("/")) {
    ctx.error(
      path,
      "",
      "unknown_file",
      "reference/ holds one file per slot (reference/<key>.<ext>); nested directories are not read",
    );
  }
}

import { type LintRecord, pointer } from "@svc/schemas";
import { comparePaths } from "./compare-paths.ts";
import type { FileTree } from "./file-tree.ts";
import { unsafePathReason } from "./unsafe-path-reason.ts";

/** The file at a repository's root that lists its package directories. */
export const PACKAGE_LIST_FILE = "svc.json";

/** The packages of a repository, or why its svc.json cannot say. */
export type PackageDiscovery =
  | {
      ok: true;
      /** Package directories relative to the repository root ("." for the root), in path order. */
      packages: string[];
      /** Where the list came from: svc.json, or the layout rule. */
      source: "svc.json" | "layout";
    }
  | { ok: false; errors: LintRecord[] };

/**
 * Finds the packages of a repository (any FileTree: a Git commit, a directory). `svc.json` at the
 * root, `{"packages": ["dir", ...]}`, lists them explicitly; without it, every directory holding
 * `campaign.json`, or a `problem.json` outside a campaign, is a package. Packages never nest: a
 * package directory inside another package belongs to the outer one, whose lint then says what
 * is wrong with it (a problem.json at a campaign root, say), so every file is linted at most once.
 */
export async function findPackages(tree: Pick<FileTree, "paths" | "read">): Promise<PackageDiscovery> {
  const paths = tree.paths();
  const markers = new Set<string>();
  for (const path of paths) {
    const cut = path.lastIndexOf("/");
    const name = path.slice(cut + 1);
    if (name === "campaign.json" || name === "problem.json")
      markers.add(cut === -1 ? "." : path.slice(0, cut));
  }
  if (paths.includes(PACKAGE_LIST_FILE)) return readPackageList(tree, markers);
  return { ok: true, packages: outermost([...markers]), source: "layout" };
}

/** Keeps the directories no other directory of the list contains, in path order. */
function outermost(dirs: string[]): string[] {
  if (dirs.includes(".")) return ["."];
  const sorted = [...new Set(dirs)].sort(comparePaths);
  const kept: string[] = [];
  // A sibling like "a-b" sorts between "a" and "a/c", so every kept directory is checked.
  for (const dir of sorted) {
    if (!kept.some((outer) => dir.startsWith(`${outer}/`))) kept.push(dir);
  }
  return kept;
}

async function readPackageList(
  tree: Pick<FileTree, "read">,
  markers: ReadonlySet<string>,
): Promise<PackageDiscovery> {
  const error = (path: string, code: LintRecord["code"], message: string): PackageDiscovery => ({
    ok: false,
    errors: [{ file: PACKAGE_LIST_FILE, path, code, message }],
  });
  let document: unknown;
  try {
    document = JSON.parse(
      new TextDecoder("utf-8", { fatal: true }).decode(await tree.read(PACKAGE_LIST_FILE)),
    );
  } catch (cause) {
    return error("", "invalid_json", `svc.json does not parse as JSON: ${(cause as Error).message}`);
  }
  const shape = 'svc.json is {"packages": ["<package directory>", ...]}';
  if (!document || typeof document !== "object" || Array.isArray(document)) {
    return error(
      "",
      "schema_violation",
      `${shape}; found ${Array.isArray(document) ? "an array" : typeof document}`,
    );
  }
  const extra = Object.keys(document).find((key) => key !== "packages");
  if (extra !== undefined) {
    return error(pointer(extra), "schema_violation", `svc.json has an unknown key "${extra}"; ${shape}`);
  }
  const listed = (document as { packages?: unknown }).packages;
  if (!Array.isArray(listed) || listed.length === 0) {
    return error("/packages", "schema_violation", `${shape}, with at least one directory`);
  }
  const packages: string[] = [];
  for (const [i, entry] of listed.entries()) {
    if (typeof entry !== "string") {
      return error(`/packages/${i}`, "schema_violation", `package ${i} must be a directory path string`);
    }
    const dir = entry === "." || entry === "./" ? "." : entry.replace(/^\.\//, "").replace(/\/+$/, "");
    const reason = dir === "." ? undefined : unsafePathReason(dir);
    if (reason !== undefined) {
      return error(`/packages/${i}`, "schema_violation", `package "${entry}" ${reason}`);
    }
    if (packages.includes(dir)) {
      return error(`/packages/${i}`, "schema_violation", `package "${entry}" is listed twice`);
    }
    if (!markers.has(dir)) {
      return error(
        `/packages/${i}`,
        "not_found",
        `package "${entry}" holds no campaign.json or problem.json; list package directories only`,
      );
    }
    const outer = packages.find(
      (other) => other === "." || dir === "." || dir.startsWith(`${other}/`) || other.startsWith(`${dir}/`),
    );
    if (outer !== undefined) {
      return error(
        `/packages/${i}`,
        "schema_violation",
        `package "${entry}" and "${outer}" nest; a package directory never holds another package`,
      );
    }
    packages.push(dir);
  }
  return { ok: true, packages: packages.sort(comparePaths), source: "svc.json" };
}

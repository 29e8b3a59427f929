import type { LintRecord } from "@svc/schemas";
import type { FileTree } from "../tree/file-tree.ts";
import { findPackages } from "../tree/find-packages.ts";
import { type CheckPackageOptions, checkPackage, type PackageCheck } from "./check-package.ts";

/** The checks of every package of a repository, or why its package list could not be read. */
export interface RepositoryCheck {
  /** svc.json's errors when it is malformed (then no package is checked). */
  discoveryErrors: LintRecord[];
  packages: PackageCheck[];
}

/**
 * Finds the packages of a repository (svc.json, else the layout rule) and checks each in path
 * order. `repository` only needs to list paths and read svc.json; `openPackage` opens one package
 * directory ("." for the root) as its own FileTree.
 */
export async function checkRepository(
  repository: Pick<FileTree, "paths" | "read">,
  openPackage: (dir: string) => Promise<FileTree>,
  options: CheckPackageOptions = {},
): Promise<RepositoryCheck> {
  const discovery = await findPackages(repository);
  if (!discovery.ok) return { discoveryErrors: discovery.errors, packages: [] };
  const packages: PackageCheck[] = [];
  for (const dir of discovery.packages)
    packages.push(await checkPackage(dir, () => openPackage(dir), options));
  return { discoveryErrors: [], packages };
}

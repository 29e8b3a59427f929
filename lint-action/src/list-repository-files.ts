import { readdirSync } from "node:fs";
import { join } from "node:path";
import { comparePaths } from "@svc/app";

/** Folders never searched for packages: Git's metadata and installed dependencies. */
const SKIPPED = new Set([".git", "node_modules"]);

/**
 * The regular files under `root` ('/'-separated, relative, in path order), for finding packages.
 * Symbolic links are neither followed nor listed, and `.git` and `node_modules` are skipped, so a
 * checkout with installed dependencies is searched quickly; each package found is then opened as
 * its own directory tree, which refuses a link inside it.
 */
export function listRepositoryFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory() && !SKIPPED.has(entry.name)) walk(path);
      else if (entry.isFile()) files.push(path);
    }
  };
  walk("");
  return files.sort(comparePaths);
}

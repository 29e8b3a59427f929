import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { mediaTypeOf } from "@svc/app";

/** Where the canonical authoring skill package lives: `docs/authoring-skill/` of this repository. */
const AUTHORING_SKILL_DIR = new URL("../../../docs/authoring-skill/", import.meta.url);

/** One file of the authoring skill package. */
export interface AuthoringSkillFile {
  path: string;
  bytes: Buffer;
  mediaType: string;
}

let files: Promise<Map<string, AuthoringSkillFile>> | undefined;

/**
 * Every file of the authoring skill, by `/`-separated path, read once per process. Callers look
 * paths up in this map and never join a caller's path onto the directory, so no path can reach
 * a file outside the package.
 */
export function authoringSkillFiles(): Promise<Map<string, AuthoringSkillFile>> {
  files ??= loadFiles();
  return files;
}

async function loadFiles(): Promise<Map<string, AuthoringSkillFile>> {
  const root = fileURLToPath(AUTHORING_SKILL_DIR);
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const loaded = new Map<string, AuthoringSkillFile>();
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const absolute = join(entry.parentPath, entry.name);
    const path = relative(root, absolute).split(sep).join("/");
    loaded.set(path, { path, bytes: await readFile(absolute), mediaType: mediaTypeOf(path) });
  }
  return new Map([...loaded].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

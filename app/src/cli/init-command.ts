import { mkdir, readdir, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { type CliIo, UsageError } from "./cli-io.ts";
import { scaffoldPackage } from "./scaffold-package.ts";

/** `svc init [dir] [--campaign]`: scaffolds a package that lints clean into an empty directory. */
export async function initCommand(dir: string, options: { campaign?: boolean }, io: CliIo): Promise<number> {
  const root = resolve(dir);
  const existing = await readdir(root).catch(() => []);
  if (existing.length > 0) {
    throw new UsageError(`${root} is not empty; svc init writes into a new or empty directory`);
  }
  const files = scaffoldPackage({ slug: slugFrom(basename(root)), campaign: Boolean(options.campaign) });
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  io.stdout(
    `created ${options.campaign ? "a campaign" : "a problem package"} in ${root}\nnext: svc lint ${dir}\n`,
  );
  return 0;
}

/** A problem slug from a directory name: lowercase words joined by single hyphens. */
export function slugFrom(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/, "");
  return slug || "my-problem";
}

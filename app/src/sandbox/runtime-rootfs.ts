import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A runtime image's root file system for bubblewrap (docs/sandbox.md "Runtimes from images"):
 * the image is copied into an OCI layout with Debian's `skopeo` (which checks every blob it copies
 * against its digest) and unpacked with `umoci` (which checks every layer against the manifest
 * before it extracts it), then cached per digest, so a checker runs on the image's own
 * interpreter, libraries and /etc, never the host's.
 *
 * The digest that names the bytes is the image's OCI ChainID (image-spec config.md): computed
 * from the uncompressed layers' diff_ids, it is the same whether Docker runs the image or
 * bubblewrap runs its unpacked layers, and whatever the manifest's format or compression.
 */

/** The image sources a runtime binds from: skopeo's transports. */
export const RUNTIME_SOURCE = /^(docker-daemon:|docker:\/\/|oci:|oci-archive:|docker-archive:)\S{1,490}$/;

/** Where a prepared image's root lives under the cache directory, by its ChainID. */
export function rootfsPath(cacheDir: string, chainId: string): string {
  return join(cacheDir, chainId.replace(/^sha256:/, ""), "rootfs");
}

/** The OCI ChainID of a layer stack from its diff_ids, lowest first. */
export function chainIdOf(diffIds: readonly string[]): string {
  if (diffIds.length === 0) throw new Error("an image without layers has no root file system");
  let chain = diffIds[0]!;
  for (const diffId of diffIds.slice(1)) {
    chain = `sha256:${createHash("sha256").update(`${chain} ${diffId}`).digest("hex")}`;
  }
  return chain;
}

/** skopeo's flags for a source: a registry on loopback speaks plain HTTP (tests, a local mirror). */
function sourceFlags(source: string): string[] {
  return /^docker:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(source) ? ["--src-tls-verify=false"] : [];
}

/**
 * The root of `source` unpacked under `cacheDir`, reusing a finished unpack of the same ChainID.
 * `expected`: the ChainID the binding pinned; a source whose layers are other bytes is refused.
 * The unpack happens in a private folder and is renamed into place, so a crash leaves no half root.
 */
export async function prepareRuntimeRootfs(
  source: string,
  cacheDir: string,
  expected?: string,
): Promise<{ chainId: string; rootfs: string }> {
  if (!RUNTIME_SOURCE.test(source)) {
    throw new Error(
      `"${source}" is not an image source: use docker-daemon:<name>, docker://<ref>, oci:<dir>[:tag]`,
    );
  }
  if (expected && existsSync(join(rootfsPath(cacheDir, expected), "..", "complete"))) {
    return { chainId: expected, rootfs: rootfsPath(cacheDir, expected) };
  }
  await mkdir(cacheDir, { recursive: true });
  // The sandbox's unprivileged user walks down to the root (bwrap drops to it when run as root).
  await chmod(cacheDir, 0o755);
  const work = await mkdtemp(join(cacheDir, ".unpack-"));
  try {
    const layout = join(work, "layout");
    await run("skopeo", ["copy", "--quiet", ...sourceFlags(source), source, `oci:${layout}:image`], {
      timeout: 15 * 60_000,
      maxBuffer: 1024 * 1024,
    });
    const chainId = chainIdOf(await diffIdsOf(layout));
    if (expected && chainId !== expected) {
      throw new Error(`${source} holds the layers ${chainId}, not the ${expected} this runtime is bound to`);
    }
    const target = rootfsPath(cacheDir, chainId);
    if (!existsSync(join(target, "..", "complete"))) {
      const rootfs = join(work, "rootfs");
      await run("umoci", ["raw", "unpack", "--image", `${layout}:image`, rootfs], {
        timeout: 15 * 60_000,
        maxBuffer: 4 * 1024 * 1024,
      });
      await makeMountPoints(rootfs);
      // umoci leaves the root 0700; the sandbox's user must enter it.
      await chmod(rootfs, 0o755);
      await rm(join(target, ".."), { recursive: true, force: true });
      await mkdir(join(target, ".."), { recursive: true });
      await rename(rootfs, target);
      await writeFile(join(target, "..", "complete"), `${source}\n`);
    }
    return { chainId, rootfs: target };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The diff_ids of the one image in an OCI layout, read through its index and manifest. */
async function diffIdsOf(layout: string): Promise<string[]> {
  const blob = async (digest: string) =>
    JSON.parse(await readFile(join(layout, "blobs", ...digest.split(":")), "utf8")) as Record<string, any>;
  const index = JSON.parse(await readFile(join(layout, "index.json"), "utf8")) as {
    manifests: { digest: string }[];
  };
  const manifest = await blob(index.manifests[0]!.digest);
  const config = await blob(manifest.config.digest);
  return config.rootfs.diff_ids as string[];
}

/**
 * The points the sandbox binds onto inside the (read-only) root: bwrap cannot create them there.
 */
async function makeMountPoints(rootfs: string): Promise<void> {
  for (const dir of ["input", "output", "tmp", "proc", "dev", ".svc"]) {
    await mkdir(join(rootfs, dir), { recursive: true });
  }
  await writeFile(join(rootfs, ".svc", "supervise.py"), "");
}

import { execFile, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { chmod, chown, lstat, mkdir, open, readdir, statfs } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Free space under 2% of the disk (at least 1 MiB), or no free inode, means the checker filled it:
 * ext4 keeps some blocks for its own metadata, so a write fails with ENOSPC before free space is 0
 * (about 450 KiB stay free on a 64 MiB disk).
 */
const FULL_BELOW_FRACTION = 0.02;
const FULL_BELOW_MIN_BYTES = 1024 * 1024;
/** How often the fallback's watchdog measures the run's disk. */
const WATCH_INTERVAL_MS = 100;
/** Entries the watchdog counts before it calls the disk full (an inode bomb on a plain folder). */
const WATCH_MAX_ENTRIES = 100_000;

/**
 * A run's disk: the host folders the sandbox sees as `/output` and `/tmp`. Both live on one
 * disk-backed file system of the run's `disk_mb` (docs/sandbox.md, "Disk"), never in host memory:
 *
 * - where the service may mount (root: the service's usual case), a sparse image file of disk_mb
 *   in the run directory, formatted ext4 and loop-mounted (nosuid, nodev): the kernel enforces
 *   the size, exactly;
 * - elsewhere (a laptop without root), plain folders in the run directory, with RLIMIT_FSIZE on
 *   each file (the supervisor, the container's ulimit) and a watchdog that measures the folders
 *   every 100 ms and stops the run once they pass disk_mb; it can overshoot by what a checker
 *   writes in 100 ms.
 */
export interface RunDisk {
  /** The host folder bound at /output (with `evidence/` in it). */
  output: string;
  /** The host folder bound at /tmp. */
  scratch: string;
  /** True when a loop-mounted file system holds them (the kernel enforces the size). */
  mounted: boolean;
  /** True once the checker filled the disk: no space or no inode left, or the watchdog fired. */
  full(): Promise<boolean>;
  /** Calls `stop` when the folders pass the limit (the fallback's watchdog; never, when mounted). */
  watch(stop: () => void): () => void;
  /** Unmounts (when mounted). The run directory's removal takes the rest. */
  release(): Promise<void>;
}

/**
 * Prepares the disk of a run in `runDir` (private, see run-directory.ts): `diskBytes` of space
 * for /output and /tmp together, owned by `owner` (the uid the checker runs as) when given, else
 * writable by anyone (the folders are inside the private run directory).
 */
export async function prepareRunDisk(
  runDir: string,
  diskBytes: number,
  owner?: { uid: number; gid: number },
): Promise<RunDisk> {
  const base = join(runDir, "disk");
  await mkdir(base, { mode: 0o700 });
  const mounted =
    process.getuid?.() === 0 &&
    process.env.SVC_SANDBOX_LOOP_DISK !== "0" &&
    (await mountImage(runDir, base, diskBytes));
  const output = join(base, "output");
  const scratch = join(base, "scratch");
  for (const dir of [output, join(output, "evidence"), scratch]) {
    await mkdir(dir);
    if (owner) await chown(dir, owner.uid, owner.gid);
    else await chmod(dir, 0o777);
  }
  if (owner) await chown(base, owner.uid, owner.gid);
  let watchdogFired = false;
  return {
    output,
    scratch,
    mounted,
    async full() {
      if (watchdogFired) return true;
      // Unmounted, RLIMIT_FSIZE may have stopped a single file at the limit before the watchdog saw more.
      if (!mounted) return measure(base, diskBytes * (1 - FULL_BELOW_FRACTION));
      const info = await statfs(base);
      const threshold = Math.max(FULL_BELOW_MIN_BYTES, info.blocks * info.bsize * FULL_BELOW_FRACTION);
      return info.bavail * info.bsize < threshold || info.ffree === 0;
    },
    watch(stop) {
      if (mounted) return () => {};
      let busy = false;
      const timer = setInterval(() => {
        if (busy) return;
        busy = true;
        void measure(base, diskBytes)
          .then((over) => {
            if (over && !watchdogFired) {
              watchdogFired = true;
              stop();
            }
          })
          .finally(() => {
            busy = false;
          });
      }, WATCH_INTERVAL_MS);
      return () => clearInterval(timer);
    },
    async release() {
      if (!mounted) return;
      try {
        await run("umount", [base]);
      } catch {
        // Something still holds it (it should not: the sandbox is gone): detach it lazily.
        await run("umount", ["-l", base]).catch(() => {});
      }
    },
  };
}

/** Formats and loop-mounts a sparse image of `diskBytes` at `base`; false when this host cannot. */
async function mountImage(runDir: string, base: string, diskBytes: number): Promise<boolean> {
  const image = join(runDir, "disk.img");
  try {
    const handle = await open(image, "wx", 0o600);
    await handle.truncate(diskBytes);
    await handle.close();
    // No journal and no reserved blocks: a scratch disk that lives for one run.
    await run("mkfs.ext4", ["-q", "-F", "-m", "0", "-O", "^has_journal", image], { timeout: 30_000 });
    await run("mount", ["-o", "loop,nosuid,nodev", image, base], { timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

/** True when the folders under `base` hold more than `limitBytes` (or too many entries). */
async function measure(base: string, limitBytes: number): Promise<boolean> {
  let bytes = 0;
  let entries = 0;
  const pending = [base];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (++entries > WATCH_MAX_ENTRIES) return true;
      const path = join(dir, name);
      const info = await lstat(path).catch(() => null);
      if (!info) continue;
      // Allocated blocks, not the apparent size: a sparse file costs what it holds.
      bytes += Math.max(info.blocks * 512, 0);
      if (bytes > limitBytes) return true;
      if (info.isDirectory()) pending.push(path);
    }
  }
  return false;
}

/**
 * A run directory removed synchronously as the process ends (a pool's exit hook): its disk, when
 * it is or may be mounted (a directory whose disk was being prepared when the process was told to
 * end), is unmounted lazily first, so the removal never meets a busy mount.
 */
export function removeRunDirectorySync(runDir: string, mayBeMounted: boolean): void {
  if (mayBeMounted) spawnSync("umount", ["-l", join(runDir, "disk")], { stdio: "ignore" });
  rmSync(runDir, { recursive: true, force: true });
}

import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { makeRunDirectory } from "./run-directory.ts";
import { prepareRunDisk, type RunDisk } from "./run-disk.ts";

/** Formatted, mounted disks kept ready per (size, owner) by default. */
export const DISK_POOL_SIZE = 2;

export interface RunDiskPool {
  /**
   * A fresh disk of `diskBytes` for one run: a ready one when the pool has it, else one made now.
   * Where this host cannot loop-mount (not root, SVC_SANDBOX_LOOP_DISK=0), the run's own folders
   * in `runDir` (run-disk.ts). Its `release` returns at once: unmounting and removal happen in
   * the background, and `close` waits for them.
   */
  take(runDir: string, diskBytes: number, owner?: { uid: number; gid: number }): Promise<RunDisk>;
  /** Resolves once no disk is being made or released (benches wait on it between runs). */
  settled(): Promise<void>;
  /** Stops refilling, unmounts and removes every disk it still holds, and waits for releases. */
  close(): Promise<void>;
}

/**
 * A pool of run disks (run-disk.ts) prepared ahead of the runs that take them: making a 64 MB
 * ext4 image, formatting and mounting it costs more than a trivial checker's whole sandbox run,
 * so it happens in the background between runs. Each disk lives in its own private directory
 * (`svc-disk-*`, 0700, owned by the sandbox uid) under `tempDir`, serves exactly one run and is
 * then unmounted and deleted, never reused. A process killed with disks still mounted leaves them
 * in its run folder, which the service's start-up sweep unmounts (sandbox-run-directory.ts); an
 * ordinary exit unmounts them synchronously.
 */
export function createRunDiskPool(options: { tempDir: string; size?: number }): RunDiskPool {
  const size = options.size ?? DISK_POOL_SIZE;
  const ready = new Map<string, Promise<PooledDisk | null>[]>();
  /** Every disk this pool made and has not removed yet, for the exit hook. */
  const live = new Set<string>();
  const pending = new Set<Promise<unknown>>();
  let closed = false;
  let mountFailed = false;

  const track = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise);
    void promise.finally(() => pending.delete(promise)).catch(() => {});
    return promise;
  };

  const onExit = () => {
    for (const dir of live) {
      spawnSync("umount", ["-l", join(dir, "disk")]);
      rmSync(dir, { recursive: true, force: true });
    }
  };
  process.once("exit", onExit);

  const remove = async (disk: PooledDisk): Promise<void> => {
    await disk.disk.release();
    await rm(disk.dir, { recursive: true, force: true });
    live.delete(disk.dir);
  };

  const make = async (
    diskBytes: number,
    owner?: { uid: number; gid: number },
  ): Promise<PooledDisk | null> => {
    const dir = await makeRunDirectory(options.tempDir, "svc-disk-", owner);
    live.add(dir);
    const disk = await prepareRunDisk(dir, diskBytes, owner);
    if (!disk.mounted) {
      // This host cannot loop-mount after all: the runs use their own folders from now on.
      mountFailed = true;
      await remove({ dir, disk });
      return null;
    }
    return { dir, disk };
  };

  return {
    async take(runDir, diskBytes, owner) {
      if (closed || mountFailed || !canMount()) return await prepareRunDisk(runDir, diskBytes, owner);
      const key = `${diskBytes}:${owner?.uid ?? "-"}:${owner?.gid ?? "-"}`;
      const queue = ready.get(key) ?? [];
      ready.set(key, queue);
      const next = queue.shift();
      while (queue.length < size) queue.push(track(make(diskBytes, owner).catch(() => null)));
      const pooled = next ? await next : await make(diskBytes, owner).catch(() => null);
      if (pooled === null) return await prepareRunDisk(runDir, diskBytes, owner);
      return {
        ...pooled.disk,
        release: async () => {
          track(remove(pooled));
        },
      };
    },
    async settled() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    async close() {
      closed = true;
      const waiting = [...ready.values()].flat();
      ready.clear();
      for (const disk of await Promise.all(waiting)) if (disk) await remove(disk);
      await Promise.all([...pending]);
      process.removeListener("exit", onExit);
    },
  };
}

interface PooledDisk {
  dir: string;
  disk: RunDisk;
}

/** Loop mounts need root, and SVC_SANDBOX_LOOP_DISK=0 turns them off (read at each run). */
function canMount(): boolean {
  return process.getuid?.() === 0 && process.env.SVC_SANDBOX_LOOP_DISK !== "0";
}

import { execFile } from "node:child_process";
import { chmod, mkdir, readdir, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { processAlive, SANDBOX_UID } from "@svc/app";
import { firstUnreachable } from "../core/db/embedded/place-for-postgres-account.ts";

const run = promisify(execFile);

/** Where run directories go when the data directory lies under one the sandbox uid cannot enter. */
export const DEFAULT_ROOT_RUN_HOME = "/var/lib/svc/sandbox-runs";

/** One process's folder of run directories: `p<pid>`, so a sweep can tell a dead process's. */
const PROCESS_FOLDER = /^p(\d+)$/;

/**
 * Prepares this process's folder of sandbox run directories and sweeps the ones crashed processes
 * left. The folder is `<data dir>/sandbox-runs/p<pid>` (`SVC_SANDBOX_RUN_DIR` replaces
 * `<data dir>/sandbox-runs`). Each run directory in it is private (0700, app/src/sandbox/
 * run-directory.ts). Run as root, bubblewrap drops to the sandbox uid, which must be able to pass
 * through to its own run directory: the folders are 0711 (enter, never list) and, when the data
 * directory lies under one the sandbox uid cannot enter (a checkout in /root), they live in
 * /var/lib/svc/sandbox-runs instead. A `p<pid>` folder whose process is gone holds only runs
 * that are no longer running (a kill -9 mid-run): it is removed here, at start-up.
 */
export async function prepareSandboxRunDirectory(
  dataDir: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  rootHome: string = DEFAULT_ROOT_RUN_HOME,
): Promise<string> {
  const asRoot = process.getuid?.() === 0;
  let home = env.SVC_SANDBOX_RUN_DIR || join(dataDir, "sandbox-runs");
  const sandboxUser = { uid: SANDBOX_UID, gid: SANDBOX_UID };
  if (asRoot && !env.SVC_SANDBOX_RUN_DIR) {
    if (await firstUnreachable(sandboxUser, dataDir)) {
      home = rootHome;
    } else {
      // The sandbox uid passes through the data directory to its run (enter, never list).
      await mkdir(dataDir, { recursive: true });
      const dataMode = (await stat(dataDir)).mode & 0o777;
      if ((dataMode & 0o001) === 0) await chmod(dataDir, dataMode | 0o001);
    }
  }
  const mode = asRoot ? 0o711 : 0o700;
  await mkdir(home, { recursive: true, mode });
  await chmod(home, mode);
  await sweepDeadProcessFolders(home);
  const mine = join(home, `p${process.pid}`);
  // A folder of ours from a process that had our pid before us holds nothing running either.
  await rm(mine, { recursive: true, force: true });
  await mkdir(mine, { mode });
  await chmod(mine, mode);
  return mine;
}

/** Removes every `p<pid>` folder whose process no longer exists; returns their names. */
export async function sweepDeadProcessFolders(home: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(home)) {
    const pid = PROCESS_FOLDER.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || processAlive(Number(pid))) continue;
    // A run's disk is a loop-mounted image (app/src/sandbox/run-disk.ts): unmount before removing.
    await unmountUnder(join(home, name));
    await rm(join(home, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** Unmounts every file system mounted under `dir`, deepest first (lazily when one is still busy). */
export async function unmountUnder(dir: string): Promise<void> {
  const mounts = await readFile("/proc/self/mounts", "utf8").catch(() => "");
  const points = mounts
    .split("\n")
    .map((line) => line.split(" ")[1])
    .filter((point): point is string => point !== undefined)
    // /proc/self/mounts writes a space, a tab, a newline and a backslash as octal escapes.
    .map((point) =>
      point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8))),
    )
    .filter((point) => point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of points) {
    await run("umount", [point]).catch(() => run("umount", ["-l", point]).catch(() => undefined));
  }
}

import { chmod, mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { SANDBOX_UID } from "@svc/app";
import { firstUnreachable } from "../core/db/embedded/place-for-postgres-account.ts";

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
    await rm(join(home, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but is not ours to signal.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

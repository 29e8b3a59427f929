import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unmountUnder } from "../../src/verification/sandbox-run-directory.ts";

/**
 * One temporary folder for the whole test run: every test process (vitest starts its workers
 * after the global setup, with this environment) and every process they spawn keeps its
 * temporary files under `$TMPDIR/svc-test-run-*`. At the end the run clears its own leftovers and
 * only those: a process a test kills on purpose (a crashed worker, a fleet replica) never runs its
 * pools' exit hook, so its sandbox disks stay loop-mounted until a service start-up sweep, which
 * a test run never performs. The folder is 1777, like /tmp: run as root, bubblewrap drops to the
 * sandbox uid, which must pass through to its run directory.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const previous = process.env.TMPDIR;
  const dir = await mkdtemp(join(tmpdir(), "svc-test-run-"));
  await chmod(dir, 0o1777);
  process.env.TMPDIR = dir;
  return async () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    try {
      await unmountUnder(dir);
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch (error) {
      // Clearing up must not fail a run whose tests passed; what is left is named.
      console.warn(
        `\nthe test run's temporary folder ${dir} was not fully removed: ${(error as Error).message}\n`,
      );
    }
  };
}

import { chmod, chown, mkdtemp } from "node:fs/promises";
import { join } from "node:path";

/**
 * Makes one run's directory under `parent`: the checker, the manifest, the artifacts and the
 * reference inputs (sealed ones included) live there while it runs, so it is private, mode 0700.
 * `owner`, when given (the sandbox uid, when we are root and bwrap drops to it), owns it so the
 * sandbox can reach what it binds; nobody else can. The caller removes it when the run ends; a
 * crash leaves it for the service's start-up sweep (server/src/verification/sandbox-run-directory.ts).
 */
export async function makeRunDirectory(
  parent: string,
  prefix: string,
  owner?: { uid: number; gid: number },
): Promise<string> {
  const dir = await mkdtemp(join(parent, prefix));
  await chmod(dir, 0o700);
  if (owner) await chown(dir, owner.uid, owner.gid);
  return dir;
}

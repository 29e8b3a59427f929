import { appendFile, chown, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { PostgresBinaries } from "./postgres-binaries.ts";
import type { OsUser } from "./postgres-os-user.ts";
import { runTool } from "./run-tool.ts";

/**
 * Creates a new PostgreSQL cluster in `clusterDir` (initdb) with a password-protected superuser.
 * The server listens on 127.0.0.1 only and opens no Unix socket, so it cannot collide with a
 * system PostgreSQL's socket; the port is given at each start.
 */
export async function initCluster(options: {
  binaries: PostgresBinaries;
  clusterDir: string;
  owner: OsUser | null;
  user: string;
  password: string;
}): Promise<void> {
  const { binaries, clusterDir, owner, user, password } = options;
  await rm(clusterDir, { recursive: true, force: true });
  await mkdir(clusterDir, { recursive: true, mode: 0o700 });
  if (owner) await chown(clusterDir, owner.uid, owner.gid);
  // initdb reads the password from a file; it sits beside the cluster only while initdb runs.
  const passwordFile = `${clusterDir}.password`;
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  if (owner) await chown(passwordFile, owner.uid, owner.gid);
  try {
    await runTool(
      binaries.initdb,
      [
        `--pgdata=${clusterDir}`,
        `--username=${user}`,
        `--pwfile=${passwordFile}`,
        "--auth=scram-sha-256",
        "--encoding=UTF8",
        "--no-locale",
        "--no-instructions",
      ],
      owner,
    );
  } finally {
    await rm(passwordFile, { force: true });
  }
  await appendFile(
    join(clusterDir, "postgresql.conf"),
    "\n# svc: TCP on the loopback interface only, no Unix socket.\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\n",
  );
}

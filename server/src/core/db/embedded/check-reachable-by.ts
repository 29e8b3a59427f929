import { stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { OsUser } from "./postgres-os-user.ts";

/**
 * Fails early, with advice, when the account PostgreSQL runs as cannot enter every directory
 * above the data directory (a data directory under /root, or inside a 0700 temporary directory);
 * initdb would otherwise fail with a bare "permission denied".
 */
export async function checkReachableBy(owner: OsUser, dataDir: string): Promise<void> {
  for (let dir = dirname(dataDir); ; dir = dirname(dir)) {
    const info = await stat(dir);
    const searchable =
      (info.mode & 0o001) !== 0 ||
      (info.uid === owner.uid && (info.mode & 0o100) !== 0) ||
      (info.gid === owner.gid && (info.mode & 0o010) !== 0);
    if (!searchable) {
      throw new Error(
        `the embedded PostgreSQL runs as the postgres account, which cannot enter ${dir}: choose an SVC_DATA_DIR under a directory others may enter, or set DATABASE_URL`,
      );
    }
    if (dir === dirname(dir)) return;
  }
}

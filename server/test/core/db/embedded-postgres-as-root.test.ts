import { existsSync } from "node:fs";
import { chmod, cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attachEmbeddedPostgres } from "../../../src/core/db/embedded/attach-embedded-postgres.ts";
import { placeForPostgresAccount } from "../../../src/core/db/embedded/place-for-postgres-account.ts";
import { postgresBinaries } from "../../../src/core/db/embedded/postgres-binaries.ts";
import { postgresOsUser } from "../../../src/core/db/embedded/postgres-os-user.ts";
import { runTool } from "../../../src/core/db/embedded/run-tool.ts";
import { silentLog } from "../../support/test-database.ts";

/**
 * Run as root (a newcomer's `npm start` from a checkout in /root), the embedded PostgreSQL runs as
 * the postgres account, which cannot enter a 0700 directory. The data directory and the binaries
 * may both lie under one: the cluster and a copy of the binaries then live where that account can
 * reach them, and `npm start` just works. CI runs as root, so these run there; as anyone else
 * PostgreSQL runs as the current user and none of this applies.
 */
const asRoot = process.getuid?.() === 0;
if (process.env.CI === "true" && !asRoot) throw new Error("CI runs as root: these tests must not skip there");

describe.runIf(asRoot)("the embedded PostgreSQL run as root under a private directory", () => {
  let privateDir: string;
  let home: string;
  beforeAll(async () => {
    privateDir = await mkdtemp(join(tmpdir(), "svc-private-"));
    await chmod(privateDir, 0o700);
    home = await mkdtemp(join(tmpdir(), "svc-pg-home-"));
    await chmod(home, 0o711);
    process.env.SVC_EMBEDDED_POSTGRES_HOME = home;
  });
  afterAll(async () => {
    delete process.env.SVC_EMBEDDED_POSTGRES_HOME;
    await rm(privateDir, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  it("starts with its data directory under a 0700 directory, the cluster placed where postgres can reach it", async () => {
    const dataDir = join(privateDir, "checkout", "server", "data");
    const embedded = await attachEmbeddedPostgres({ dataDir, log: silentLog });
    try {
      const sql = postgres(embedded.url, { max: 1 });
      expect((await sql`select current_database() as name`)[0]?.name).toBe("svc");
      await sql.end();
      expect(existsSync(join(dataDir, "postgres"))).toBe(false);
      expect(existsSync(join(dataDir, "embedded-postgres.json"))).toBe(true);
      expect(existsSync(join(home, "clusters"))).toBe(true);
    } finally {
      await embedded.release();
    }
    // The same data directory finds the same cluster again.
    const again = await attachEmbeddedPostgres({ dataDir, log: silentLog });
    expect(again.started).toBe(true);
    await again.release();
  }, 120_000);

  it("copies the binaries once when they lie under a 0700 directory, runnable by postgres", async () => {
    const owner = (await postgresOsUser())!;
    const shipped = await postgresBinaries();
    const nativeDir = dirname(dirname(shipped.initdb));
    const hidden = join(privateDir, "node_modules", "native");
    await mkdir(dirname(hidden), { recursive: true });
    await cp(nativeDir, hidden, { recursive: true, verbatimSymlinks: true });
    const inside = (path: string) => join(hidden, path.slice(nativeDir.length + 1));
    const binaries = {
      initdb: inside(shipped.initdb),
      pg_ctl: inside(shipped.pg_ctl),
      postgres: inside(shipped.postgres),
    };
    const reachableData = await mkdtemp(join(tmpdir(), "svc-data-"));
    try {
      const placed = await placeForPostgresAccount(owner, reachableData, binaries, home);
      expect(placed.clusterHome).toBe(reachableData);
      expect(placed.binaries.initdb.startsWith(home)).toBe(true);
      expect(await runTool(placed.binaries.initdb, ["--version"], owner)).toMatch(/initdb \(PostgreSQL\)/);
      const second = await placeForPostgresAccount(owner, reachableData, binaries, home);
      expect(second.binaries).toEqual(placed.binaries);
    } finally {
      await rm(reachableData, { recursive: true, force: true });
    }
  }, 120_000);
});

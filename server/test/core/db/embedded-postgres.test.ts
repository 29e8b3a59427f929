import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive } from "@svc/app";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { attachEmbeddedPostgres } from "../../../src/core/db/embedded/attach-embedded-postgres.ts";
import { openDatabase } from "../../../src/core/db/open-database.ts";
import { describeWithDatabase, silentLog } from "../../support/test-database.ts";

/**
 * The embedded PostgreSQL of one data directory, shared by the processes that name it. These
 * tests always start their own embedded server, whatever DATABASE_URL says, and share one data
 * directory so it is initialised once; each test leaves the server stopped.
 */
describe("the embedded PostgreSQL", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "svc-embedded-"));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  const postmasterPid = async () =>
    Number((await readFile(join(dataDir, "postgres", "postmaster.pid"), "utf8")).split("\n")[0]);
  const settings = async () => JSON.parse(await readFile(join(dataDir, "embedded-postgres.json"), "utf8"));

  it("is shared by every user of the data directory and stopped by the last one to let go", async () => {
    // 1. The first user initialises the cluster and starts the server.
    const first = await attachEmbeddedPostgres({ dataDir, log: silentLog });
    expect(first.started).toBe(true);
    const pid = await postmasterPid();
    expect(processAlive(pid)).toBe(true);
    // 2. A second user joins the running server instead of starting another.
    const second = await attachEmbeddedPostgres({ dataDir, log: silentLog });
    expect(second.started).toBe(false);
    expect(second.url).toBe(first.url);
    // 3. The first lets go: the server keeps running for the second.
    await first.release();
    const sql = postgres(second.url, { max: 1 });
    expect((await sql`select current_database() as name`)[0]?.name).toBe("svc");
    await sql`create table kept (value text)`;
    await sql`insert into kept values ('across restarts')`;
    await sql.end();
    // 4. The last one lets go: the server stops cleanly.
    await second.release();
    expect(processAlive(pid)).toBe(false);
    expect(existsSync(join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
  });

  it("restarts on the remembered port with its data, without initialising again", async () => {
    const before = await settings();
    const db = await openDatabase({ dataDir, log: silentLog });
    try {
      expect(await settings()).toEqual(before);
      expect(new URL(db.url).port).toBe(String(before.port));
      expect(await db.sql`select value from kept`).toEqual([{ value: "across restarts" }]);
    } finally {
      await db.close();
    }
    expect(existsSync(join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
  });

  it("moves to a free port when the remembered one is taken, and remembers the new one", async () => {
    const { port } = await settings();
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen({ host: "127.0.0.1", port }, resolve));
    try {
      const db = await openDatabase({ dataDir, log: silentLog });
      const moved = Number(new URL(db.url).port);
      await db.close();
      expect(moved).not.toBe(port);
      expect((await settings()).port).toBe(moved);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  it("is stopped by the last live user even when a process that died left its lease behind", async () => {
    const dead = spawnSync(process.execPath, ["-e", "process.pid"]).pid;
    await writeFile(join(dataDir, "clients", `${dead}-deadbeef0000`), "");
    const db = await openDatabase({ dataDir, log: silentLog });
    const pid = await postmasterPid();
    await db.close();
    expect(processAlive(pid)).toBe(false);
    expect(existsSync(join(dataDir, "clients", `${dead}-deadbeef0000`))).toBe(false);
  });
});

describeWithDatabase("openDatabase with a DATABASE_URL", () => {
  const url = inject("databaseUrl");
  it("uses that server and starts nothing", async () => {
    const dataDir = join(tmpdir(), "svc-never-created");
    const db = await openDatabase({ databaseUrl: url!, dataDir, log: silentLog });
    expect(await db.sql`select 1 as one`).toEqual([{ one: 1 }]);
    await db.close();
    expect(existsSync(dataDir)).toBe(false);
  });
});

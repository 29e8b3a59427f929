import { type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { processAlive } from "@svc/app";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../../src/core/db/open-database.ts";
import { readMigrations } from "../../../src/core/db/read-migrations.ts";
import { authenticate } from "../../../src/users/authenticate.ts";
import { stopChild } from "../../support/bounded-teardown.ts";
import { silentLog } from "../../support/test-database.ts";

/**
 * `svc-server` end to end, as an operator runs it: real processes on one embedded data
 * directory. DATABASE_URL is removed from their environment, so they use the embedded server.
 */
const bin = new URL("../../../bin/svc-server.js", import.meta.url).pathname;
const temps: string[] = [];
const servers: ChildProcessWithoutNullStreams[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => stopChild(server, { signal: "SIGKILL" })));
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "svc-server-cli-"));
  temps.push(dir);
  return dir;
}

function environment(dir: string): NodeJS.ProcessEnv {
  const { DATABASE_URL: _ignored, ...env } = process.env;
  return { ...env, SVC_DATA_DIR: dir, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "info" };
}

function svcServer(
  dir: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: environment(dir) }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Starts `svc-server serve` and resolves with its address once it logs that it listens. */
function serve(
  dir: string,
): Promise<{ server: ChildProcessWithoutNullStreams; url: string; lines: string[] }> {
  const server = spawn(process.execPath, [bin, "serve"], { env: environment(dir) });
  servers.push(server);
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    createInterface({ input: server.stdout }).on("line", (line) => {
      lines.push(line);
      const entry = JSON.parse(line);
      if (entry.msg === "svc is listening") resolve({ server, url: entry.url, lines });
    });
    let stderr = "";
    server.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    server.on("exit", (code) =>
      reject(new Error(`svc-server serve exited with ${code}: ${stderr}${lines.join("\n")}`)),
    );
  });
}

function exited(server: ChildProcessWithoutNullStreams): Promise<number | null> {
  return server.exitCode !== null
    ? Promise.resolve(server.exitCode)
    : new Promise((resolve) => server.on("exit", (code) => resolve(code)));
}

async function postmasterPid(dir: string): Promise<number> {
  return Number((await readFile(join(dir, "postgres", "postmaster.pid"), "utf8")).split("\n")[0]);
}

describe("svc-server", () => {
  it("serves, answers operator commands run beside it on the same database, and stops cleanly on SIGTERM", async () => {
    const dir = await dataDir();
    // 1. The server initialises the embedded PostgreSQL, migrates it and becomes healthy.
    const { server, url, lines } = await serve(dir);
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ ok: true });
    const pid = await postmasterPid(dir);

    // 2. Operator commands, each its own process, join the server's database.
    const added = await svcServer(dir, "user", "add", "ada", "--capability", "author");
    expect(added).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^\{"user_id":"usr_[0-9a-z]{20}"\}\n$/),
    });
    const userId = JSON.parse(added.stdout).user_id;
    const issued = await svcServer(dir, "token", "issue", "ada", "--scope", "read");
    expect(issued.code).toBe(0);
    const { token } = JSON.parse(issued.stdout);
    expect(token).toMatch(/^svc_[0-9A-Za-z]{40}$/);
    expect(await postmasterPid(dir)).toBe(pid);

    // 3. The token works against the same database the server uses.
    const db = await openDatabase({ dataDir: dir, log: silentLog });
    try {
      expect(await authenticate(db.sql, token)).toMatchObject({
        user: { id: userId, handle: "ada" },
        scopes: ["read"],
        capabilities: ["author"],
      });
      // 4. Errors are one JSON line on stderr with exit 1; bad usage exits 2.
      const taken = await svcServer(dir, "user", "add", "ada");
      expect(taken.code).toBe(1);
      expect(JSON.parse(taken.stderr.trim().split("\n").at(-1)!)).toMatchObject({
        error: { code: "conflict" },
      });
      expect((await svcServer(dir, "token", "issue", "ada", "--scope", "write")).code).toBe(2);
      // 5. A sign-in link names the running server's own address (its real port), not the
      //    operator shell's PORT=0.
      const link = await svcServer(dir, "user", "login-link", "ada", "--return-to", "/settings");
      expect(link.code).toBe(0);
      expect(JSON.parse(link.stdout).url).toMatch(
        new RegExp(`^${url.replace(/[.]/g, "\\.")}/sign-in/link/svl_[0-9A-Za-z]{43}$`),
      );
      expect((await svcServer(dir, "user", "login-link", "nobody")).code).not.toBe(0);
      // 6. Revocation by prefix takes effect at once.
      const revoked = await svcServer(dir, "token", "revoke", token.slice(0, 12));
      expect(revoked.code).toBe(0);
      expect(JSON.parse(revoked.stdout)).toMatchObject({ token_prefix: token.slice(0, 12) });
      expect(await authenticate(db.sql, token)).toBeNull();
    } finally {
      await db.close();
    }
    expect(processAlive(pid)).toBe(true);

    // 7. SIGTERM: the server drains, stops the embedded PostgreSQL and exits 0.
    server.kill("SIGTERM");
    expect(await exited(server)).toBe(0);
    expect(processAlive(pid)).toBe(false);
    expect(existsSync(join(dir, "postgres", "postmaster.pid"))).toBe(false);
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(
      expect.arrayContaining(["stopped the embedded PostgreSQL", "stopped"]),
    );
    // Seven processes and an embedded PostgreSQL's first start: 15 s on a quiet machine, over
    // vitest's 30 s default at a load of 10 on two cores; bounded like the test below.
  }, 120_000);

  it("runs operator commands with no server running, starting and stopping the embedded PostgreSQL", async () => {
    const dir = await dataDir();
    const first = await svcServer(dir, "migrate");
    expect(first).toMatchObject({ code: 0 });
    // Every migration file, in order (the list grows with each new numbered file).
    const names = readMigrations().map((migration) => migration.name);
    expect(names.slice(0, 3)).toEqual(["001_users", "002_records", "003_read_indexes"]);
    expect(JSON.parse(first.stdout)).toEqual({ applied: names });
    expect(JSON.parse((await svcServer(dir, "migrate")).stdout)).toEqual({ applied: [] });
    expect((await svcServer(dir, "user", "add", "grace", "--admin")).code).toBe(0);
    // No server has run on this database: the service's address is unknown, and the shell's
    // PORT (0 here) is not taken for it.
    const unknown = await svcServer(dir, "user", "login-link", "grace", "--return-to", "/settings");
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stderr.trim().split("\n").at(-1)!)).toMatchObject({
      error: { code: "unavailable", message: expect.stringContaining("public address is not known") },
    });
    // GitHub invitations: at creation, or for an existing user; a login GitHub would refuse is
    // refused naming the option, and one login invites one user.
    expect((await svcServer(dir, "user", "add", "hopper", "--github", "Grace-H")).code).toBe(0);
    expect(JSON.parse((await svcServer(dir, "user", "link-github", "grace", "octocat")).stdout)).toEqual({
      handle: "grace",
      github_login: "octocat",
      linked: false,
    });
    const badLogin = await svcServer(dir, "user", "link-github", "grace", "not_a_login");
    expect(badLogin.code).toBe(1);
    expect(JSON.parse(badLogin.stderr.trim().split("\n").at(-1)!)).toMatchObject({
      error: { code: "invalid_input", field: "github" },
    });
    const twice = await svcServer(dir, "user", "add", "other", "--github", "grace-h");
    expect(JSON.parse(twice.stderr.trim().split("\n").at(-1)!)).toMatchObject({
      error: { code: "conflict" },
    });
    expect(existsSync(join(dir, "postgres", "postmaster.pid"))).toBe(false);
    // Ten commands, each starting and stopping the embedded PostgreSQL: seconds apiece on a busy machine.
  }, 120_000);
});

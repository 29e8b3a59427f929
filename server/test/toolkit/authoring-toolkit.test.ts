import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { sha256 } from "@svc/app";
import { afterAll, beforeAll, expect, it } from "vitest";
import { call, connect, type DraftUser, draftUser } from "../drafts/draft-harness.ts";
import type { TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { builtinsOnly, testServices } from "../support/test-services.ts";

/** Runs `node svc.mjs ...args` in `cwd` with only the given environment; resolves with its exit and output. */
function runToolkit(cwd: string, args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ["svc.mjs", ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: cwd, XDG_CONFIG_HOME: join(cwd, ".config"), ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Whether any folder from `dir` up to the root holds node_modules (Node would resolve imports there). */
function nodeModulesAbove(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, "node_modules"))) return true;
    if (dirname(d) === d) return false;
  }
}

describeWithDatabase("the authoring toolkit", () => {
  const db = useTestDatabase();
  let app: RunningApp;
  let author: DraftUser;
  let client: TestClient;
  let workdir: string;

  beforeAll(async () => {
    app = await startApp(testServices(db.sql, { sandbox: builtinsOnly() }));
    author = await draftUser(db.sql, { capabilities: ["author"] });
    client = await connect(app.url, author);
    workdir = mkdtempSync(join(tmpdir(), "svc-toolkit-"));
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
    if (workdir) rmSync(workdir, { recursive: true, force: true });
  });

  it("downloads one file that lints and drafts a package in an empty directory without node_modules", async () => {
    // 1. The tool names the bundle and signs a 15-minute link to it.
    const toolkit = await call(client, "get_authoring_toolkit", {});
    expect(toolkit).toMatchObject({
      version: "0.1.0",
      content_hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      platforms: ["linux", "darwin", "win32"],
      download_url: expect.stringMatching(/\/dl\//),
    });
    const expiresIn = Date.parse(String(toolkit.expires_at)) - Date.now();
    expect(expiresIn).toBeGreaterThan(0);
    expect(expiresIn).toBeLessThanOrEqual(15 * 60 * 1000);

    // 2. The link needs no bearer and gives exactly the bytes named.
    const response = await fetch(String(toolkit.download_url));
    expect(response.status).toBe(200);
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(sha256(bytes)).toBe(toolkit.content_hash);
    expect(bytes.byteLength).toBe(toolkit.size_bytes);
    writeFileSync(join(workdir, "svc.mjs"), bytes);
    expect(nodeModulesAbove(workdir)).toBe(false);

    // 3. In that empty directory it scaffolds and lints a package offline...
    expect((await runToolkit(workdir, ["init", "toolkit-root"])).code).toBe(0);
    const lint = await runToolkit(workdir, ["lint", "toolkit-root", "--json"]);
    expect(lint.code, lint.stderr).toBe(0);
    expect(JSON.parse(lint.stdout)).toMatchObject({ ok: true, errors: [] });

    // 4. ...and drafts it on the service as private work.
    const draft = await runToolkit(workdir, ["draft", "toolkit-root", "--json"], {
      SVC_BASE_URL: app.url,
      SVC_TOKEN: author.token,
    });
    expect(draft.code, draft.stderr).toBe(0);
    expect(JSON.parse(draft.stdout)).toMatchObject({
      ok: true,
      problems: [expect.objectContaining({ slug: "toolkit-root", action: "create", revision_number: 1 })],
    });
    const managed = await call(client, "get_work_management", { work: { problem: "toolkit-root" } });
    expect(managed.work).toMatchObject({ owner_user_id: author.id, visibility: "private" });

    // 5. A second call signs a fresh link to the same bytes.
    expect((await call(client, "get_authoring_toolkit", {})).content_hash).toBe(toolkit.content_hash);
  });
});

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLI_SHARD_LIMITS } from "../../src/client/plan-shards.ts";
import {
  type PublishState,
  publishStatePath,
  readPublishState,
  writePublishState,
} from "../../src/client/publish-state.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "svc-state-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const state = (server = "http://svc.test"): PublishState => ({
  version: 1,
  server,
  package_plan_hash: "sha256:abc",
  limits: CLI_SHARD_LIMITS,
  shards: [],
  updated_at: "2030-01-01T00:00:00.000Z",
});

describe("publish state", () => {
  it("writes <dir>/.svc/publish-state.json and reads it back", async () => {
    await writePublishState(dir, state());
    expect(publishStatePath(dir)).toBe(join(dir, ".svc", "publish-state.json"));
    expect(await readPublishState(dir)).toEqual(state());
  });

  it("replaces the file by rename, leaving no temporary files behind", async () => {
    await writePublishState(dir, state("http://a.test"));
    await writePublishState(dir, state("http://b.test"));
    expect(readdirSync(join(dir, ".svc"))).toEqual(["publish-state.json"]);
    expect(JSON.parse(readFileSync(publishStatePath(dir), "utf8")).server).toBe("http://b.test");
  });

  it("reads a missing, damaged or foreign file as no state", async () => {
    expect(await readPublishState(dir)).toBeNull();
    mkdirSync(join(dir, ".svc"));
    writeFileSync(publishStatePath(dir), '{"version": 1, "server": "x", "shards": [');
    expect(await readPublishState(dir)).toBeNull();
    writeFileSync(publishStatePath(dir), JSON.stringify({ ...state(), version: 2 }));
    expect(await readPublishState(dir)).toBeNull();
    writeFileSync(publishStatePath(dir), "[]");
    expect(await readPublishState(dir)).toBeNull();
  });

  it("keeps the old file when the write fails", async () => {
    await writePublishState(dir, state());
    const cyclic: Record<string, unknown> = { ...state() };
    cyclic.self = cyclic;
    await expect(writePublishState(dir, cyclic as unknown as PublishState)).rejects.toThrow();
    expect(await readPublishState(dir)).toEqual(state());
    expect(readdirSync(join(dir, ".svc"))).toEqual(["publish-state.json"]);
  });
});

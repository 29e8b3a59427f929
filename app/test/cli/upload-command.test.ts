import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliDeps } from "../../src/cli/cli-deps.ts";
import { campaignFiles } from "../client/support/campaign-files.ts";
import { FakeAuthoringService } from "../client/support/fake-authoring-service.ts";
import { svcWith, writePackage } from "./support-run.ts";

let service: FakeAuthoringService;
let cleanup: Array<() => void>;

beforeEach(() => {
  service = new FakeAuthoringService();
  cleanup = [];
});
afterEach(() => {
  for (const fn of cleanup.splice(0)) fn();
});

function deps(owner = "usr_ada"): Partial<CliDeps> {
  return {
    env: { SVC_BASE_URL: "http://svc.test", SVC_TOKEN: "svc_token", XDG_CONFIG_HOME: "/nonexistent" },
    sleep: async () => {},
    random: () => 0,
    now: () => new Date("2030-01-02T03:04:05Z"),
    openClient: () => service.client(owner),
  };
}

function pkg(files: Record<string, string>): string {
  const written = writePackage(files);
  cleanup.push(written.remove);
  return written.dir;
}

describe("svc upload", () => {
  it("uploads and validates one archive, prints the reconciliation and records .svc/upload.json", async () => {
    const dir = pkg(campaignFiles(2));
    const run = await svcWith(deps(), ["upload", dir]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^upload upl_\d+ \(\d+ bytes, sha256:[0-9a-f]{64}\)$/m);
    expect(run.stdout).toContain("campaign x-campaign: create");
    expect(run.stdout).toMatch(/^ {2}create {3}p-0 {2}revision 1$/m);
    expect(run.stdout).toContain("valid: plan_hash sha256:");
    const record = JSON.parse(readFileSync(join(dir, ".svc/upload.json"), "utf8"));
    expect(Object.keys(record)).toEqual(["upload_id", "plan_hash", "content_hash", "uploaded_at", "valid"]);
    expect(record).toMatchObject({ valid: true, uploaded_at: "2030-01-02T03:04:05.000Z" });
    expect(service.calls).toEqual(["request_authoring_upload", "put", "validate_authoring_upload"]);
    expect(service.problems.size).toBe(0);
  });

  it("exits 3 when a planned checker fails its own fixtures, printing each with the checker's traceback", async () => {
    service.failConformance = true;
    const dir = pkg(campaignFiles(1));
    const run = await svcWith(deps(), ["upload", dir]);
    expect(run.code).toBe(3);
    expect(run.stdout).toContain(
      "conformance: a checker failed its own fixtures; it will not become current",
    );
    expect(run.stdout).toContain(
      "  FAIL check_answer/right_answer: expected verified, actual error (checker.py)",
    );
    expect(run.stdout).toContain("the checker wrote no /output/result.json (the checker exited with code 1)");
    expect(run.stdout).toContain('|   File "/input/checker/checker.py", line 3, in <module>');
    expect(run.stdout).toContain("| RuntimeError: the checker broke");
    expect(run.stdout).toMatch(/valid: plan_hash sha256:[0-9a-f]{64}; but 1 conformance fixture failed$/m);

    const json = await svcWith(deps(), ["upload", dir, "--json"]);
    expect(json.code).toBe(3);
    const [failure] = JSON.parse(json.stdout).conformance;
    expect(failure).toMatchObject({
      stage_key: "check_answer",
      fixture: "right_answer",
      expected: "verified",
      actual: "error",
      passed: false,
      program: "checker.py",
      implementation: expect.stringMatching(/^sha256:/),
    });
    expect(failure.log_tail).toContain("RuntimeError: the checker broke");
  });

  it("waits for conformance fixtures the service queued, bounded, with progress on stderr", async () => {
    service.pendingConformance = 7;
    const dir = pkg(campaignFiles(1));
    const run = await svcWith(deps(), ["upload", dir]);
    expect(run.code).toBe(0);
    expect(service.calls.filter((call) => call === "validate_authoring_upload")).toHaveLength(8);
    expect(run.stderr).toBe(
      "svc upload: conformance fixtures queued on the service; waited 0 s of 600\n" +
        "svc upload: conformance fixtures queued on the service; waited 30 s of 600\n",
    );
  });

  it("gives up waiting after 10 minutes, saying how to read the result later", async () => {
    service.pendingConformance = Number.POSITIVE_INFINITY;
    const dir = pkg(campaignFiles(1));
    const run = await svcWith(deps(), ["upload", dir, "--json"]);
    expect(run.code).toBe(0);
    expect(service.calls.filter((call) => call === "validate_authoring_upload")).toHaveLength(121);
    expect(JSON.parse(run.stdout).conformance_state).toBe("pending");
    expect(run.stderr).toMatch(
      /conformance fixtures still queued after 600 s; validate_authoring_upload \{"upload_id": "upl_\d+"\} reads them when they finish\n$/,
    );
  });

  it("exits 1 on an invalid upload, naming the conflict, and records valid: false", async () => {
    await svcWith(deps("usr_bob"), ["draft", pkg(campaignFiles(1))]);
    const dir = pkg(campaignFiles(1));
    const run = await svcWith(deps(), ["upload", dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/conflict\s+p-0 {2}the slug p-0 belongs to another user/);
    expect(run.stdout).toContain("invalid: 0 errors, 1 conflict");
    expect(JSON.parse(readFileSync(join(dir, ".svc/upload.json"), "utf8")).valid).toBe(false);
  });

  it("--json prints the validation envelope with upload_id and content_hash", async () => {
    const run = await svcWith(deps(), ["upload", pkg(campaignFiles(1)), "--json"]);
    const envelope = JSON.parse(run.stdout);
    expect(envelope).toMatchObject({
      valid: true,
      upload_id: expect.stringMatching(/^upl_/),
      content_hash: expect.stringMatching(/^sha256:/),
    });
    expect(envelope.reconciliation.counts.create).toBe(1);
  });

  it("exits 1 on lint errors and on a refusal, writing no record", async () => {
    const files = campaignFiles(1);
    files["problems/d-1/problem.json"] = "{";
    const broken = pkg(files);
    expect((await svcWith(deps(), ["upload", broken])).code).toBe(1);
    expect(existsSync(join(broken, ".svc/upload.json"))).toBe(false);

    const dir = pkg(campaignFiles(1));
    service.inject("request_authoring_upload", service.toolError("forbidden", "contribute scope needed"));
    const refused = await svcWith(deps(), ["upload", dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("request_authoring_upload failed [forbidden]: contribute scope needed");
  });
});

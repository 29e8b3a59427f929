import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { bwrapRuns, chainIdOf, PYTHON_RUNTIME, pingDocker, type RunStatement } from "@svc/app";
import Docker from "dockerode";
import { afterAll, beforeAll, expect, it } from "vitest";
import { svcWith } from "../../../app/test/cli/support-run.ts";
import { sequenceAttestations } from "../../src/attestations/sequence-attestations.ts";
import { budgetedSandboxRunner, sandboxBudgetFromEnv } from "../../src/core/services/sandbox-budget.ts";
import type { Services } from "../../src/core/services/services.ts";
import { bindRuntime } from "../../src/sandbox-images/bind-runtime.ts";
import { liveImageState } from "../../src/sandbox-images/image-state.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import { executeVerificationRun } from "../../src/verification/execute-verification-run.ts";
import { localSandboxRunner } from "../../src/verification/local-sandbox-runner.ts";
import { resolveBinding } from "../../src/verification/resolve-binding.ts";
import { editJson, fixturePackage, newAuthor, newUser } from "../authoring/support/authoring-harness.ts";
import { startApp } from "../edges/mcp/support/start-app.ts";
import { type LocalRegistry, startLocalRegistry } from "../support/local-registry.ts";
import { createTestDatabase, describeWithDatabase, type TestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import {
  passConformance,
  publishProblem,
  seedSubmission,
} from "../verification/support/verification-harness.ts";

const run = promisify(execFile);
const IMAGE = process.env.SVC_PYTHON_IMAGE ?? "svc-python:1";

/** A deterministic checker that keeps what identifies its runtime as evidence. */
const PROBE = `import json, os, pathlib, platform, sys
os.makedirs("/output/evidence", exist_ok=True)
release = open("/etc/os-release").read() if os.path.exists("/etc/os-release") else "no /etc/os-release"
json.dump({"python": sys.version, "implementation": platform.python_implementation(), "os_release": release},
          open("/output/evidence/runtime.json", "w"), sort_keys=True)
pathlib.Path("/output/result.json").write_text(json.dumps({"result": "verified"}))
`;

async function engines(): Promise<string | null> {
  if (!bwrapRuns()) return "bwrap does not run here";
  const docker = new Docker();
  if (!(await pingDocker(docker))) return "no Docker engine answers";
  try {
    await docker.getImage(IMAGE).inspect();
  } catch {
    return `image ${IMAGE} is missing (scripts/build-python-image.sh)`;
  }
  return null;
}
const missing = await engines();
if (missing && process.env.CI === "true") throw new Error(`CI=true but ${missing}`);
const describeIfEngines = missing ? describeWithDatabase.skip : describeWithDatabase;

/**
 * Issue 34 item 1 through the service: an operator binds svc-runtime/python:1 for bubblewrap to an
 * image in a real registry on loopback; a run then executes in that image's root and records its
 * ChainID as runtime_bytes_digest, in the run and in its attestation; a second deployment bound to
 * the same image under Docker records the same digest and gets the same evidence digest.
 */
describeIfEngines("script runtimes bound to an image's bytes", () => {
  let registry: LocalRegistry;
  let reference: string;
  let chainId: string;
  const dbs: TestDatabase[] = [];

  beforeAll(async () => {
    registry = await startLocalRegistry();
    reference = `docker://${registry.host}/svc-python:1`;
    await run("skopeo", ["copy", "--quiet", "--dest-tls-verify=false", `docker-daemon:${IMAGE}`, reference], {
      timeout: 300_000,
    });
    chainId = chainIdOf((await new Docker().getImage(IMAGE).inspect()).RootFS.Layers ?? []);
  }, 300_000);
  afterAll(async () => {
    for (const db of dbs) await db.drop();
    await registry?.stop();
  });

  async function deployment(backend: "bwrap" | "docker"): Promise<Services> {
    const db = await createTestDatabase();
    dbs.push(db);
    const sandbox = budgetedSandboxRunner(
      localSandboxRunner({
        env: { ...process.env, SVC_SANDBOX: backend, SVC_SANDBOX_POOL_SIZE: "0" },
        runtimeDir: mkdtempSync(join(tmpdir(), "svc-runtimes-")),
      }),
      sandboxBudgetFromEnv({}),
    );
    return testServices(db.sql, { sandbox });
  }

  async function probeRun(services: Services, checker = PROBE, slug = "runtime-probe") {
    const author = await newAuthor(services.sql);
    const solver = await newUser(services.sql);
    const files = editJson(
      { ...fixturePackage("valid-script"), "checker.py": Buffer.from(checker) },
      "problem.json",
      (p) => {
        p.slug = slug;
      },
    );
    const problem = await publishProblem(services, author, files);
    await passConformance(services.sql, problem.verifier_contract_id);
    // Listed, as a Problem people take part in is: the participant replays it without the author.
    await services.sql`update problems set visibility = 'listed' where id = ${problem.problem_id}`;
    const seeded = await seedSubmission(services, solver, problem, [
      { role: "answer", filename: "answer.txt", media_type: "text/plain", content: "1234\n" },
    ]);
    await executeVerificationRun(services, seeded.verification_run_id);
    const [stage] = await services.sql<{ result: string; mechanism: { sandbox: Record<string, unknown> } }[]>`
      select result, mechanism from verification_stage_results where verification_run_id = ${seeded.verification_run_id}`;
    return { runId: seeded.verification_run_id, stage: stage!, solverHandle: solver.user.handle };
  }

  it("runs in the bound image's root under bubblewrap and under Docker alike, and records the bytes that ran", async () => {
    const underBwrap = await deployment("bwrap");
    const admin = await newUser(underBwrap.sql, { admin: true });
    const bound = await bindRuntime(underBwrap, admin.user.id, {
      image_ref: PYTHON_RUNTIME,
      backend: "bwrap",
      local_image: reference,
    });
    expect(bound).toMatchObject({
      backend: "bwrap",
      local_image: chainId,
      source: reference,
      runtime_bytes_digest: chainId,
    });
    const bwrapRun = await probeRun(underBwrap);
    expect(bwrapRun.stage.result).toBe("verified");
    expect(bwrapRun.stage.mechanism.sandbox).toMatchObject({
      backend: "bwrap",
      runtime_bytes_digest: chainId,
    });

    const underDocker = await deployment("docker");
    const dockerAdmin = await newUser(underDocker.sql, { admin: true });
    await bindRuntime(underDocker, dockerAdmin.user.id, {
      image_ref: PYTHON_RUNTIME,
      backend: "docker",
      local_image: IMAGE,
    });
    const dockerRun = await probeRun(underDocker);
    expect(dockerRun.stage.mechanism.sandbox).toMatchObject({
      backend: "docker",
      runtime_bytes_digest: chainId,
    });
    expect(bwrapRun.stage.mechanism.sandbox.evidence_hash).toBe(
      dockerRun.stage.mechanism.sandbox.evidence_hash,
    );

    // The attestation names the bytes and the backend.
    await sequenceAttestations(underBwrap);
    const [attestation] = await underBwrap.sql<{ envelope: string }[]>`
      select envelope from attestations where verification_run_id = ${bwrapRun.runId}`;
    const statement = JSON.parse(
      Buffer.from(JSON.parse(attestation!.envelope).payload, "base64").toString(),
    ) as RunStatement;
    expect(statement.predicate.stages[0]!.sandbox).toMatchObject({
      backend: "bwrap",
      runtime_bytes_digest: chainId,
    });

    // svc verify --replay, as the participant on a clean machine: the same bytes, the same verdict.
    const app = await startApp(underBwrap);
    try {
      const { token } = await issueToken(underBwrap.sql, bwrapRun.solverHandle, ["read"]);
      const home = mkdtempSync(join(tmpdir(), "svc-replay-"));
      const env = {
        SVC_BASE_URL: app.url,
        SVC_TOKEN: token,
        HOME: home,
        XDG_CONFIG_HOME: join(home, "config"),
        // Where the sandbox's unprivileged user can enter (a home folder is 0700).
        SVC_RUNTIME_DIR: mkdtempSync(join(tmpdir(), "svc-replay-runtimes-")),
        SVC_SANDBOX: "bwrap",
      };
      const replay = async (runId: string, ...argv: string[]) => {
        const run = await svcWith({ env }, ["verify", "--replay", runId, ...argv]);
        return { code: run.code, stdout: run.stdout + run.stderr };
      };
      // No image named: the CLI copies the bytes from the registry reference the service publishes for them.
      const runtimes = await (await fetch(`${app.url}/api/runtimes`)).json();
      expect(runtimes).toEqual({
        runtimes: [{ image_ref: PYTHON_RUNTIME, runtime_bytes_digest: chainId, source: reference }],
      });
      const same = await replay(bwrapRun.runId);
      expect(same.stdout).toContain(`SAME: every sandbox stage of ${bwrapRun.runId}`);
      expect(same.code).toBe(0);
      // With a container engine instead: the local image is checked by its layers, then run.
      const inDocker = await replay(bwrapRun.runId, "--sandbox", "docker", "--image", IMAGE);
      expect(inDocker.stdout).toMatch(/same check_answer: verified, evidence sha256:[0-9a-f]{64} on docker/);
      expect(inDocker.code).toBe(0);
      // A checker whose evidence is not a function of its inputs replays to another digest, and says so.
      const nonce = "open('/output/evidence/nonce', 'w').write(os.urandom(8).hex())\n";
      const random = await probeRun(underBwrap, PROBE + nonce, "random-probe");
      await sequenceAttestations(underBwrap);
      env.SVC_TOKEN = (await issueToken(underBwrap.sql, random.solverHandle, ["read"])).token;
      const differs = await replay(random.runId, "--image", reference);
      expect(differs.stdout).toMatch(
        /DIFFERENT: stage check_answer evidence_hash: attested "sha256:[0-9a-f]{64}", replayed "sha256:[0-9a-f]{64}"/,
      );
      expect(differs.code).toBe(1);
    } finally {
      await app.close();
    }
  }, 300_000);

  it("by default an unbound runtime is unbound until an operator binds it to an image", async () => {
    // The host's interpreter is a trial's opt-in (SVC_BWRAP_HOST_INTERPRETER=1), never the default.
    expect((await localSandboxRunner({ env: {}, backends: {} }).engines()).hostInterpreter).toBe(false);
    expect(
      (await localSandboxRunner({ env: { SVC_BWRAP_HOST_INTERPRETER: "0" }, backends: {} }).engines())
        .hostInterpreter,
    ).toBe(false);
    expect(
      (await localSandboxRunner({ env: { SVC_BWRAP_HOST_INTERPRETER: "1" }, backends: {} }).engines())
        .hostInterpreter,
    ).toBe(true);
    const services = await deployment("bwrap");
    const strict = { docker: false, bwrap: true, hostInterpreter: false };
    expect(await resolveBinding(services.sql, strict, PYTHON_RUNTIME)).toMatchObject({
      kind: "unbound",
      reason: expect.stringContaining("svc-server runtime bind"),
    });
    expect(await liveImageState(services.sql, strict, PYTHON_RUNTIME)).toMatchObject({ state: "unbound" });
    const admin = await newUser(services.sql, { admin: true });
    await bindRuntime(services, admin.user.id, {
      image_ref: PYTHON_RUNTIME,
      backend: "bwrap",
      local_image: reference,
    });
    expect(await resolveBinding(services.sql, strict, PYTHON_RUNTIME)).toMatchObject({
      kind: "ready",
      binding: { backend: "bwrap", local_image: chainId, source: reference, bytes_digest: chainId },
    });
    expect(await liveImageState(services.sql, strict, PYTHON_RUNTIME)).toMatchObject({
      state: "available",
      runtime_digest: chainId,
    });
  }, 120_000);

  it("refuses a source it cannot copy, naming local_image, and binds nothing", async () => {
    const services = await deployment("bwrap");
    const admin = await newUser(services.sql, { admin: true });
    await expect(
      bindRuntime(services, admin.user.id, {
        image_ref: PYTHON_RUNTIME,
        backend: "bwrap",
        local_image: `docker://${registry.host}/no-such-image:1`,
      }),
    ).rejects.toMatchObject({ code: "invalid_input", details: { field: "local_image" } });
    expect(await services.sql`select 1 from sandbox_runtimes`).toHaveLength(0);
  }, 120_000);
});

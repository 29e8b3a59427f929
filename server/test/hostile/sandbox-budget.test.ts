import type { Runner } from "graphile-worker";
import { expect, it } from "vitest";
import { validateAuthoringUpload } from "../../src/authoring/validate-authoring-upload.ts";
import { runValidationConformance } from "../../src/authoring/validation-conformance-job.ts";
import {
  budgetedSandboxRunner,
  type SandboxBudgetSettings,
  sandboxBudgetFromEnv,
} from "../../src/core/services/sandbox-budget.ts";
import type { SandboxRunner } from "../../src/core/services/sandbox-runner.ts";
import type { Services } from "../../src/core/services/services.ts";
import { startWorker } from "../../src/edges/worker/start-worker.ts";
import type { Principal } from "../../src/users/principal.ts";
import { localSandboxRunner } from "../../src/verification/local-sandbox-runner.ts";
import { type Files, newAuthor, uploadAndValidate } from "../authoring/support/authoring-harness.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { asksForTheMost, holdsMemory } from "./evil-packages.ts";

/** A budget of `memory_mb` with room for everything else, and the spec's own maximums as ceilings. */
function budget(overrides: Partial<SandboxBudgetSettings>): SandboxBudgetSettings {
  return { ...sandboxBudgetFromEnv({}), ...overrides };
}

/**
 * The budget over the real sandbox, where admitted checkers start only once `expected` runs have
 * asked for the budget: every validation is then queued before any checker ends, so the test
 * sees the queue hold the rest back whatever the order the validations reach it.
 */
function gatedBudget(settings: SandboxBudgetSettings, expected: number) {
  let arrived = 0;
  let allArrived: () => void = () => {};
  const everyoneQueued = new Promise<void>((resolve) => {
    allArrived = resolve;
  });
  const real = localSandboxRunner();
  const gated: SandboxRunner = {
    engines: () => real.engines(),
    run: async (job, binding, owner) => {
      await everyoneQueued;
      return await real.run(job, binding, owner);
    },
  };
  const budgeted = budgetedSandboxRunner(gated, settings);
  const counting: SandboxRunner = {
    engines: () => budgeted.engines(),
    run: (job, binding, owner) => {
      arrived += 1;
      const result = budgeted.run(job, binding, owner);
      if (arrived === expected) allArrived();
      return result;
    },
  };
  return { sandbox: counting, stats: () => budgeted.stats() };
}

/**
 * Validates each package (answering at once, conformance pending), then runs every queued
 * fixture job at once, as that many workers would, and revalidates to read the results.
 */
async function validateAll(services: Services, author: Principal, packages: Files[]) {
  const pending = await Promise.all(packages.map((files) => uploadAndValidate(services, author, files)));
  for (const validation of pending) {
    expect(validation).toMatchObject({ conformance: [], conformance_state: "pending" });
  }
  await Promise.all(
    pending.map((validation) =>
      runValidationConformance(services, {
        upload_id: validation.upload_id,
        plan_hash: validation.plan_hash!,
      }),
    ),
  );
  return await Promise.all(
    pending.map((validation) =>
      validateAuthoringUpload(services, author, { upload_id: validation.upload_id }),
    ),
  );
}

describeWithDatabase("the host's sandbox budget", () => {
  const db = useTestDatabase();

  it("evil/hold-900mb: six parallel validations of a checker holding 900 MiB run two at a time in a 2,400 MB budget", async () => {
    const sandboxBudget = budget({ slots: 6, memory_mb: 2400, per_user: 6 });
    const sandbox = gatedBudget(sandboxBudget, 6);
    const services = testServices(db.sql, { sandbox: sandbox.sandbox, sandboxBudget });
    const author = await newAuthor(db.sql);
    const validations = await validateAll(
      services,
      author,
      Array.from({ length: 6 }, (_, i) => holdsMemory(`holds-${i}`)),
    );
    for (const validation of validations) {
      expect(validation.errors).toEqual([]);
      expect(validation.conformance_state).toBe("complete");
      expect(validation.conformance).toEqual([
        expect.objectContaining({
          fixture: "right_answer",
          expected: "verified",
          actual: "verified",
          passed: true,
        }),
      ]);
    }
    const stats = sandbox.stats();
    // 1,200 MB each: the budget takes two; the other validations' fixtures waited their turn.
    expect(stats).toEqual({
      peak_running: 2,
      peak_memory_mb: 2400,
      peak_waiting: 4,
      running: 0,
      waiting: 0,
      memory_mb_in_use: 0,
    });
  });

  it("evil/hold-900mb: one user's validations never run more than the per-user cap at once", async () => {
    const sandboxBudget = budget({ slots: 6, memory_mb: 100_000, per_user: 1 });
    const sandbox = gatedBudget(sandboxBudget, 3);
    const services = testServices(db.sql, { sandbox: sandbox.sandbox, sandboxBudget });
    const author = await newAuthor(db.sql);
    const validations = await validateAll(
      services,
      author,
      Array.from({ length: 3 }, (_, i) => holdsMemory(`capped-${i}`)),
    );
    expect(validations.map((validation) => validation.conformance.map((entry) => entry.passed))).toEqual([
      [true],
      [true],
      [true],
    ]);
    expect(sandbox.stats()).toMatchObject({ peak_running: 1, peak_waiting: 2, running: 0, waiting: 0 });
  });

  it("evil/asks-for-the-most: limits over the SVC_MAX_* ceilings are refused, field by field, and no fixture runs", async () => {
    const sandboxBudget = sandboxBudgetFromEnv(
      {
        SVC_MAX_VCPU: "2",
        SVC_MAX_MEMORY_MB: "2048",
        SVC_MAX_DISK_MB: "1024",
        SVC_MAX_TIMEOUT_SECONDS: "300",
      },
      { cores: 2, memory_mb: 8192 },
    );
    const sandbox = budgetedSandboxRunner(localSandboxRunner(), sandboxBudget);
    const services = testServices(db.sql, { sandbox, sandboxBudget });
    const author = await newAuthor(db.sql);
    const validation = await uploadAndValidate(services, author, asksForTheMost("asks-most"));
    expect(validation.valid).toBe(false);
    expect(validation.state).toBe("invalid");
    expect(validation.conformance).toEqual([]);
    expect(validation.conformance_state).toBe("complete");
    const over = (field: string, value: number, ceiling: number, setting: string) => ({
      file: "verifier-contract.json",
      path: `/stages/0/limits/${field}`,
      code: "unsupported_runtime",
      message: `stage check_answer asks for limits.${field} ${value}, over this service's ceiling of ${ceiling} (${setting}): set ${field} to ${ceiling} or less`,
    });
    expect(validation.errors).toEqual([
      over("vcpu", 16, 2, "SVC_MAX_VCPU"),
      over("memory_mb", 16384, 2048, "SVC_MAX_MEMORY_MB"),
      over("disk_mb", 65536, 1024, "SVC_MAX_DISK_MB"),
      over("timeout_seconds", 3600, 300, "SVC_MAX_TIMEOUT_SECONDS"),
    ]);
    expect(sandbox.stats().peak_running).toBe(0);
  });

  it("evil/hold-900mb: validation answers at once with conformance pending; a worker runs the fixtures and revalidating shows them", async () => {
    const services = testServices(db.sql);
    const author = await newAuthor(db.sql);
    const first = await uploadAndValidate(services, author, holdsMemory("later"));
    expect(first).toMatchObject({
      valid: true,
      state: "validated",
      conformance: [],
      conformance_state: "pending",
    });
    // Revalidating before any worker ran reads the same pending state and queues nothing twice.
    expect(await validateAuthoringUpload(services, author, { upload_id: first.upload_id })).toMatchObject({
      conformance: [],
      conformance_state: "pending",
    });
    const [jobs] = await db.sql<{ count: number }[]>`
      select count(*)::int as count from graphile_worker.jobs
      where key = ${`validation-conformance:${first.upload_id}`}`;
    expect(jobs!.count).toBe(1);

    const runner: Runner = await startWorker(services, { concurrency: 1, pollInterval: 100 });
    try {
      let state = "pending";
      for (let poll = 0; poll < 600 && state === "pending"; poll++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const [row] = await db.sql<{ state: string }[]>`
          select validation->>'conformance_state' as state from authoring_uploads where id = ${first.upload_id}`;
        state = row!.state;
      }
      expect(state).toBe("complete");
    } finally {
      await runner.stop();
    }
    const later = await validateAuthoringUpload(services, author, { upload_id: first.upload_id });
    expect(later).toMatchObject({ conformance_state: "complete", valid: true });
    expect(later.conformance).toEqual([
      {
        stage_key: "check_answer",
        image_ref: "svc-runtime/python:1",
        fixture: "right_answer",
        expected: "verified",
        actual: "verified",
        passed: true,
        implementation: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        program: "checker.py",
        detail: "1234 squared is 1522756",
        // The checker's output is kept for failed fixtures only.
        log_tail: "",
      },
    ]);
  });

  it("derives its defaults from the host and refuses settings that cannot be right", () => {
    expect(sandboxBudgetFromEnv({}, { cores: 8, memory_mb: 32768 })).toEqual({
      slots: 7,
      memory_mb: 16384,
      per_user: 4,
      stage_wait_seconds: 3600,
      ceilings: { vcpu: 8, memory_mb: 16384, disk_mb: 4096, timeout_seconds: 600 },
    });
    expect(sandboxBudgetFromEnv({}, { cores: 1, memory_mb: 2048 })).toMatchObject({
      slots: 1,
      memory_mb: 1024,
      per_user: 1,
      ceilings: { memory_mb: 1024 },
    });
    expect(() => sandboxBudgetFromEnv({ SVC_SANDBOX_SLOTS: "0" })).toThrow(
      "SVC_SANDBOX_SLOTS=0 is not valid: use a whole number from 1 to 1024",
    );
    expect(() => sandboxBudgetFromEnv({ SVC_MAX_TIMEOUT_SECONDS: "7200" })).toThrow(
      "SVC_MAX_TIMEOUT_SECONDS=7200 is not valid: use a whole number from 1 to 3600",
    );
  });
});

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLocalBlobStore } from "../../src/core/blobs/open-local-blob-store.ts";
import type { Pool } from "../../src/core/db/connect-sql.ts";
import {
  budgetedSandboxRunner,
  type SandboxBudgetSettings,
  sandboxBudgetFromEnv,
} from "../../src/core/services/sandbox-budget.ts";
import type { SandboxRunner } from "../../src/core/services/sandbox-runner.ts";
import type { Services } from "../../src/core/services/services.ts";
import type { Clock } from "../../src/core/time/clock.ts";
import { unavailableHostedReviewers } from "../../src/reviews/agents/unavailable-hosted-reviewers.ts";
import { localSandboxRunner } from "../../src/verification/local-sandbox-runner.ts";
import { silentLog } from "./test-database.ts";

/** A fixed signing secret for tests (32 bytes). */
export const TEST_SIGNING_SECRET = "test-signing-secret-of-32-bytes!";

/**
 * Services over `sql` for a test: a fresh temporary blob directory, the test signing secret, a
 * silent logger, the wall clock unless `clock` is given and this host's default sandbox budget.
 */
export function testServices(
  sql: Pool,
  options: {
    clock?: Clock;
    baseUrl?: string;
    blobDir?: string;
    sandbox?: SandboxRunner;
    sandboxBudget?: SandboxBudgetSettings;
  } = {},
): Services {
  const sandboxBudget = options.sandboxBudget ?? sandboxBudgetFromEnv({});
  return {
    sql,
    log: silentLog,
    clock: options.clock ?? (() => new Date()),
    blobs: openLocalBlobStore(options.blobDir ?? mkdtempSync(join(tmpdir(), "svc-blobs-"))),
    signingSecret: TEST_SIGNING_SECRET,
    baseUrl: options.baseUrl,
    // A given runner is used as it is (a test of the budget brings its own).
    // No warm sandboxes: a test process ends without the service's shutdown, which would remove
    // them; the pools themselves are tested in app/test/sandbox.
    sandbox:
      options.sandbox ??
      budgetedSandboxRunner(
        localSandboxRunner({
          env: { ...process.env, SVC_SANDBOX_POOL_SIZE: process.env.SVC_SANDBOX_POOL_SIZE ?? "0" },
        }),
        sandboxBudget,
      ),
    sandboxBudget,
    hostedReviewers: unavailableHostedReviewers,
  };
}

/**
 * A sandbox runner with builtins only, as on a machine with neither Docker nor bubblewrap: for
 * tests about what the service reports when script runtimes are unbound.
 */
export function builtinsOnly(): SandboxRunner {
  return localSandboxRunner({ backends: {} });
}

/**
 * builtinsOnly, with script runtimes reading as available (bubblewrap answers), for tests that
 * materialize script packages as drafts without running their checkers: spec 3 refuses an
 * unbound script upload as a draft (prepare-work-draft.ts).
 */
export function scriptRuntimesBound(): SandboxRunner {
  const runner = builtinsOnly();
  return {
    ...runner,
    engines: async () => ({ ...(await runner.engines()), bwrap: true, hostInterpreter: true }),
  };
}

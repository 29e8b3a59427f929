import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { bwrapRuns, sha256 } from "@svc/app";
import { afterAll, afterEach, expect, it } from "vitest";
import { releaseDeadWorkersJobs, WORKER_DEAD_MS } from "../../src/core/jobs/worker-liveness.ts";
import { advanceReviewProcess } from "../../src/reviews/advance-review-process.ts";
import { claimReview } from "../../src/reviews/claim-review.ts";
import { readAssignmentRows } from "../../src/reviews/read-process-rows.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import {
  type Files,
  fixturePackage,
  newAuthor,
  newUser,
  recordCounts,
  SLOW_ANSWER,
  sleepyScript,
  zipFiles,
} from "../authoring/support/authoring-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { humanNode, kOfN, protocol } from "../reviews/engine/support/protocols.ts";
import { reviewers, reviewWorld, startOn } from "../reviews/engine/support/review-harness.ts";
import { stopChild, TEARDOWN_BOUND_MS, within } from "../support/bounded-teardown.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";

const hasBwrap = bwrapRuns();
if (!hasBwrap && process.env.CI === "true") throw new Error("CI=true but bubblewrap does not run");

/**
 * kill -9 of the real service (`svc-server serve`, a child process over a test database) at each
 * phase, then a restart on the same database and data directory: nothing half-written, and the
 * work completes. The phases are held still deterministically, with no hook in the product: the
 * test takes the PostgreSQL lock the phase needs next and waits until the service's backend waits
 * on it, or runs a checker that sleeps.
 */
const bin = new URL("../../bin/svc-server.js", import.meta.url).pathname;

describeWithDatabase("kill -9 at each phase", () => {
  const db = useTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), "svc-crash-"));
  const servers: ChildProcessWithoutNullStreams[] = [];
  const clients: TestClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => within("an MCP client's close", client.close())));
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => stopChild(server, { signal: "SIGKILL" })));
  }, TEARDOWN_BOUND_MS);

  /** `svc-server serve` on the test database; resolves once it listens. */
  const serve = (): Promise<{ server: ChildProcessWithoutNullStreams; url: string }> => {
    const server = spawn(process.execPath, [bin, "serve"], {
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        SVC_DATA_DIR: dataDir,
        HOST: "127.0.0.1",
        PORT: "0",
        LOG_LEVEL: "info",
        SVC_WORKERS: "1",
        SVC_SIGNING_SECRET: "test-signing-secret-of-32-bytes!",
      },
    });
    servers.push(server);
    return new Promise((resolve, reject) => {
      let stderr = "";
      server.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      createInterface({ input: server.stdout }).on("line", (line) => {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "svc is listening") resolve({ server, url: entry.url! });
      });
      server.on("exit", (code) => reject(new Error(`svc-server serve exited with ${code}: ${stderr}`)));
    });
  };
  const killHard = async (server: ChildProcessWithoutNullStreams) => {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGKILL");
    await exited;
  };
  const connect = async (url: string, token: string) => {
    const client = await clientLines[0].connect(url, token);
    clients.push(client);
    return client;
  };
  const call = async (client: TestClient, name: string, args: Record<string, unknown>) => {
    const result = await client.callTool(name, args);
    const envelope = envelopeOf(result) as Record<string, any>;
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(envelope)}`);
    return envelope;
  };
  const upload = async (url: string, client: TestClient, files: Files): Promise<string> => {
    const bytes = await zipFiles(files);
    const requested = await call(client, "request_authoring_upload", {
      size_bytes: bytes.byteLength,
      content_hash: sha256(bytes),
    });
    const put = await fetch(new URL(requested.upload_url, url), {
      method: "PUT",
      headers: { "content-type": "application/zip" },
      body: bytes,
    });
    expect(put.status).toBe(200);
    return requested.upload_id;
  };
  /** Holds `statement` in a transaction of its own until `release` is called. */
  const holdLock = async (statement: (sql: typeof db.sql) => Promise<unknown>) => {
    const reserved = await db.sql.reserve();
    await reserved`begin`;
    await statement(reserved as unknown as typeof db.sql);
    return async () => {
      await reserved`rollback`;
      reserved.release();
    };
  };
  /** Waits until a backend of the service waits on a lock (the phase is held where we want it). */
  const waitForLockWait = async () => {
    const until = Date.now() + 30_000;
    for (;;) {
      const [row] = await db.sql<{ waiting: number }[]>`
        select count(*)::int as waiting from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`;
      if (row!.waiting > 0) return;
      if (Date.now() > until) throw new Error("the service never reached the held lock");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  const author = { token: "" };
  const sleepy = () => sleepyScript(8);

  it("evil/kill-9-during-validation and evil/kill-9-during-publish: nothing half-written, and the next try succeeds once", async () => {
    const principal = await newAuthor(db.sql);
    author.token = (await issueToken(db.sql, principal.user.handle, ["read", "contribute"])).token;
    const files = hasBwrap ? sleepy() : fixturePackage("valid-builtin-sat");

    // Validation, held at its final write: the upload row is locked by the test.
    let running = await serve();
    let client = await connect(running.url, author.token);
    const uploadId = await upload(running.url, client, files);
    let release = await holdLock(
      (sql) => sql`select 1 from authoring_uploads where id = ${uploadId} for update`,
    );
    const validating = client
      .callTool("validate_authoring_upload", { upload_id: uploadId })
      .catch(() => null);
    await waitForLockWait();
    await killHard(running.server);
    await release();
    await validating;
    // All or nothing: PostgreSQL may still apply the single write the dead service had sent when
    // the lock goes (it has not noticed the closed connection yet), or drop it. Never a part.
    const [afterValidation] = await db.sql<{ state: string; validation: Record<string, unknown> | null }[]>`
      select state, validation from authoring_uploads where id = ${uploadId}`;
    if (afterValidation!.state === "uploaded") {
      expect(afterValidation!.validation).toBeNull();
    } else {
      expect(afterValidation).toMatchObject({
        state: "validated",
        validation: { valid: true, plan_hash: expect.stringMatching(/^sha256:/) },
      });
    }

    running = await serve();
    client = await connect(running.url, author.token);
    const validated = await call(client, "validate_authoring_upload", { upload_id: uploadId });
    expect(validated).toMatchObject({ valid: true });

    // Publish, held inside its transaction after the records were written: the audit table is locked.
    const before = await recordCounts(db.sql);
    release = await holdLock((sql) => sql`lock table work_audit in share row exclusive mode`);
    const publishing = client
      .callTool("publish_authoring_upload", { upload_id: uploadId, plan_hash: validated.plan_hash })
      .catch(() => null);
    await waitForLockWait();
    await killHard(running.server);
    await release();
    await publishing;
    expect(await recordCounts(db.sql)).toEqual(before);
    const [afterPublish] = await db.sql<
      { state: string }[]
    >`select state from authoring_uploads where id = ${uploadId}`;
    expect(afterPublish!.state).toBe("validated");

    running = await serve();
    client = await connect(running.url, author.token);
    const published = await call(client, "publish_authoring_upload", {
      upload_id: uploadId,
      plan_hash: validated.plan_hash,
    });
    expect(published.problems).toHaveLength(1);
    const again = await call(client, "publish_authoring_upload", {
      upload_id: uploadId,
      plan_hash: validated.plan_hash,
    });
    expect(again.problems[0].problem_id).toBe(published.problems[0].problem_id);
    expect((await recordCounts(db.sql)).problems).toBe(before.problems + 1);
    // A clean stop (SIGTERM) lets post-publication conformance finish or hands its job back.
    const stopped = new Promise((resolve) => running.server.once("exit", resolve));
    running.server.kill("SIGTERM");
    await stopped;
  }, 120_000);

  it.skipIf(!hasBwrap)(
    "evil/kill-9-during-a-run: the run is released from the dead worker and ends with its verdict",
    async () => {
      const solver = await newUser(db.sql);
      const solverToken = (await issueToken(db.sql, solver.user.handle, ["read", "contribute"])).token;
      let running = await serve();
      const client = await connect(running.url, solverToken);
      // Post-publication conformance of the published script ran on the first server's worker.
      await waitFor(async () => {
        const [row] = await db.sql<{ pending: number }[]>`
          select count(*)::int as pending from verifier_implementations where conformance->>'status' = 'pending'`;
        return row!.pending === 0;
      }, "conformance to settle");
      await db.sql`update problems set visibility = 'unlisted' where slug = 'sleepy-root'`;
      const { attempt } = await call(client, "start_attempt", { problem: "sleepy-root" });
      const { artifact } = await call(client, "upload_artifact", {
        attempt_id: attempt.id,
        filename: "answer.txt",
        content_text: `${SLOW_ANSWER}\n`,
      });
      const created = await call(client, "create_submission", {
        attempt_id: attempt.id,
        artifacts: [{ role: "answer", artifact_id: artifact.id }],
      });
      const runId = created.verification_run_id as string;
      await waitFor(async () => {
        const [row] = await db.sql<{ status: string }[]>`
          select status from verification_stage_results where verification_run_id = ${runId}`;
        return row?.status === "running";
      }, "the stage to run");
      const killedRuns = join(dataDir, "sandbox-runs", `p${running.server.pid}`);
      // The checker is in its sandbox once its inputs are laid out in a run directory (beside it:
      // the bwrap backend's warm sandboxes, svc-bwrap-* with an empty input/, which the restart
      // sweeps too).
      await waitFor(
        async () =>
          existsSync(killedRuns) &&
          readdirSync(killedRuns).filter(
            (name) =>
              name.startsWith("svc-bwrap-") && existsSync(join(killedRuns, name, "input", "manifest.json")),
          ).length === 1,
        "the run directory",
      );
      await killHard(running.server);

      // Nothing half-written: the run and its stage are running, with no result.
      const [run] = await db.sql<{ status: string; result: string | null }[]>`
        select status, result from verification_runs where id = ${runId}`;
      expect(run).toEqual({ status: "running", result: null });

      // The job is locked by the dead worker; past WORKER_DEAD_MS the sweep releases it.
      // (Earlier kills in this file left theirs too: every one is released, none stays locked.)
      const locked = async () =>
        (
          await db.sql<
            { n: number }[]
          >`select count(*)::int as n from graphile_worker.jobs where locked_by is not null`
        )[0]!.n;
      expect(await locked()).toBeGreaterThan(0);
      expect(await releaseDeadWorkersJobs(db.sql, new Date(Date.now() + WORKER_DEAD_MS + 1000))).not.toEqual(
        [],
      );
      expect(await locked()).toBe(0);
      running = await serve();
      // The start removed what the killed process left of the run (its inputs, sealed ones included).
      expect(existsSync(killedRuns)).toBe(false);
      // The checker sleeps 8 s on this answer: the rerun ends by its verdict once it wakes.
      await waitFor(
        async () => {
          const [row] = await db.sql<
            { status: string }[]
          >`select status from verification_runs where id = ${runId}`;
          return row!.status === "finished";
        },
        "the run to finish",
        100_000,
      );
      const [finished] = await db.sql<
        { result: string }[]
      >`select result from verification_runs where id = ${runId}`;
      expect(finished!.result).toBe("refuted");
      await killHard(running.server);
    },
    200_000,
  );

  it("evil/kill-9-with-a-review-timer-pending: a claim's hold still lapses on time after the restart", async () => {
    const world = await reviewWorld(db.sql);
    const oneReader = protocol(
      [humanNode("readers", { count: 1 }), kOfN("decision", "readers", 1, 1)],
      "decision",
    );
    // The protocol holds a claim 120 minutes: the world's clock is set so that it ends 10 s from now.
    world.clock.set(new Date(Date.now() - 120 * 60_000 + 10_000));
    let running = await serve();
    const review = await startOn(world, oneReader);
    await advanceReviewProcess(world.services, review.id);
    const [reader] = await reviewers(db.sql, 1);
    const held = await claimReview(world.services, reader!.user.id, {
      review_process_id: review.id,
      node_id: "readers",
    });
    await killHard(running.server);

    // The hold's timer outlives the service: still pending, not run, the claim still held.
    const timer = await db.sql<{ run_at: Date }[]>`
      select run_at from graphile_worker.jobs where key = ${`review_hold:${held.id}`} and attempts = 0`;
    expect(timer).toHaveLength(1);
    expect((await readAssignmentRows(db.sql, review.id))[0]).toMatchObject({ status: "claimed" });

    // Past the hold's end, a restarted service runs the timer and the claim lapses.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, timer[0]!.run_at.getTime() - Date.now()) + 200),
    );
    running = await serve();
    await waitFor(
      async () => (await readAssignmentRows(db.sql, review.id))[0]?.status === "lapsed",
      "the hold to lapse",
    );
    await killHard(running.server);
  }, 120_000);
});

async function waitFor(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

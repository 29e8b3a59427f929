import { canonicalJson, leafHash, MemoryMerkleTree, openCheckpoint, parseNoteVerifierKey } from "@svc/app";
import { afterAll, beforeAll, expect, it } from "vitest";
import { publishedKeys } from "../../src/attestations/attestation-keys.ts";
import type { Services } from "../../src/core/services/services.ts";
import type { Principal } from "../../src/users/principal.ts";
import { executeVerificationRun } from "../../src/verification/execute-verification-run.ts";
import { type FleetProcess, startFleetProcess } from "../support/fleet.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import {
  type PublishedProblem,
  publishedSat,
  seedSubmission,
} from "../verification/support/verification-harness.ts";

/**
 * Issue 34 item 4: a kill -9 of a worker process while its sequencer is inside a batch (held
 * there by a lock this test takes on one of the log's tables) leaves no gap and no duplicate:
 * the batch rolls back whole, another worker integrates it, and every checkpoint, before and after,
 * is the root of a prefix of one tree of signed envelopes.
 */
describeWithDatabase("the transparency log survives kill -9 of its sequencer", () => {
  const db = useTestDatabase();
  let services: Services;
  let solver: Principal;
  let sat: PublishedProblem;
  const workers: FleetProcess[] = [];

  beforeAll(async () => {
    services = testServices(db.sql);
    ({ solver, sat } = await publishedSat(services));
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop("SIGKILL");
  });

  async function finishRuns(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const seeded = await seedSubmission(services, solver, sat, [
        { role: "assignment", filename: "a.txt", media_type: "text/plain", content: "v 1 2 -3 0\n" },
      ]);
      await executeVerificationRun(services, seeded.verification_run_id);
    }
  }

  function worker(): FleetProcess {
    const started = startFleetProcess("worker", { DATABASE_URL: db.url, SVC_LOG_INTERVAL_MS: "50" });
    workers.push(started);
    // A worker killed on purpose never logs that it is ready.
    started.ready.catch(() => {});
    return started;
  }

  /** Waits until a backend is blocked on a lock inside `statement`, and returns its pid. */
  async function blockedIn(statement: string): Promise<number> {
    for (let i = 0; i < 600; i++) {
      const [row] = await db.sql<{ pid: number }[]>`
        select pid from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query ilike ${`%${statement}%`}`;
      if (row) return row.pid;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no sequencer blocked in ${statement} within 30 s`);
  }

  async function queueDrained(): Promise<void> {
    for (let i = 0; i < 600; i++) {
      const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from attestation_queue`;
      if (row!.n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error("the queue did not drain within 30 s");
  }

  async function killedInside(table: string, statement: string): Promise<void> {
    const reserved = await db.sql.reserve();
    try {
      await reserved`begin`;
      await reserved.unsafe(`lock table ${table} in exclusive mode`);
      const victim = worker();
      const backend = await blockedIn(statement).catch((error: Error) => {
        throw new Error(
          `${error.message}; the worker said: ${victim.stderr.slice(-2000)} ${JSON.stringify(victim.lines.slice(-5))}`,
        );
      });
      victim.child.kill("SIGKILL");
      await victim.exited;
      await reserved`commit`;
      // The dead client's backend finds its socket closed after the lock and rolls the batch back.
      for (let i = 0; i < 600; i++) {
        const [alive] = await db.sql`select 1 from pg_stat_activity where pid = ${backend}`;
        if (!alive) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      reserved.release();
    }
  }

  it("rolls back a killed batch whole; the next worker integrates every run once, with no gap", async () => {
    await finishRuns(5);
    // Killed after signing, while appending its nodes.
    await killedInside("transparency_log_nodes", "insert into transparency_log_nodes");
    const [afterFirstKill] = await db.sql<{ n: number }[]>`select count(*)::int as n from attestations`;
    expect(afterFirstKill!.n).toBe(0);
    const survivor = worker();
    await queueDrained();
    await finishRuns(4);
    await queueDrained();
    await survivor.stop();

    await finishRuns(3);
    // Killed while publishing its checkpoint, with an earlier checkpoint already out.
    await killedInside("transparency_log_checkpoints", "insert into transparency_log_checkpoints");
    const last = worker();
    await queueDrained();
    await last.stop();

    const attestations = await db.sql<
      { log_index: string; verification_run_id: string; reason: string; envelope: string }[]
    >`
      select log_index, verification_run_id, reason, envelope from attestations order by log_index`;
    expect(attestations.map((row) => Number(row.log_index))).toEqual([...Array(12).keys()]);
    const finished = await db.sql<
      { id: string }[]
    >`select id from verification_runs where status = 'finished'`;
    expect(new Set(attestations.map((row) => `${row.verification_run_id}:${row.reason}`)).size).toBe(12);
    expect(new Set(attestations.map((row) => row.verification_run_id))).toEqual(
      new Set(finished.map((row) => row.id)),
    );

    // Every checkpoint ever published is the root of a prefix of one tree of these envelopes.
    const tree = new MemoryMerkleTree();
    for (const row of attestations) tree.append(leafHash(Buffer.from(row.envelope)));
    const [{ origin }] = await db.sql<{ origin: string }[]>`select origin from transparency_log`;
    const keys = (await publishedKeys(db.sql, origin)).map(
      (key) => parseNoteVerifierKey(key.note_verifier_key)!,
    );
    const checkpoints = await db.sql<{ tree_size: string; note: string }[]>`
      select tree_size, note from transparency_log_checkpoints order by tree_size`;
    expect(checkpoints.length).toBeGreaterThanOrEqual(2);
    for (const checkpoint of checkpoints) {
      const opened = openCheckpoint(checkpoint.note, keys);
      expect(opened.ok).toBe(true);
      const size = Number(checkpoint.tree_size);
      expect(
        (opened as { checkpoint: { rootHash: Buffer } }).checkpoint.rootHash.equals(tree.root(size)),
      ).toBe(true);
    }
    // The envelopes are exactly the canonical JSON the leaves were computed from.
    expect(attestations.every((row) => canonicalJson(JSON.parse(row.envelope)) === row.envelope)).toBe(true);
  }, 180_000);
});

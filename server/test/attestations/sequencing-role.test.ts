import { afterAll, beforeAll, expect, it } from "vitest";
import {
  type AttestationSequencer,
  startAttestationSequencer,
  TAKE_OVER_MS,
} from "../../src/attestations/attestation-sequencer.ts";
import type { Services } from "../../src/core/services/services.ts";
import type { Principal } from "../../src/users/principal.ts";
import { executeVerificationRun } from "../../src/verification/execute-verification-run.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import {
  type PublishedProblem,
  publishedSat,
  seedSubmission,
} from "../verification/support/verification-harness.ts";

/**
 * One worker process sequences at a time (issue 38: every process looking at the queue each
 * interval made each extra process cost the fleet CPU): two sequencers, each on a session of its
 * own, never sequence together, and when the sequencing one stops the other takes over and
 * integrates what was queued.
 */
describeWithDatabase("one sequencing process at a time", () => {
  const db = useTestDatabase();
  let services: Services;
  let solver: Principal;
  let sat: PublishedProblem;
  const sequencers: AttestationSequencer[] = [];

  beforeAll(async () => {
    services = testServices(db.sql);
    ({ solver, sat } = await publishedSat(services));
  });
  afterAll(async () => {
    for (const sequencer of sequencers) await sequencer.stop();
  });

  async function finishRun(): Promise<string> {
    const seeded = await seedSubmission(services, solver, sat, [
      { role: "assignment", filename: "a.txt", media_type: "text/plain", content: "v 1 2 -3 0\n" },
    ]);
    await executeVerificationRun(services, seeded.verification_run_id);
    return seeded.verification_run_id;
  }

  async function until(what: string, condition: () => boolean | Promise<boolean>, ms: number) {
    const deadline = Date.now() + ms;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`not ${what} within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const attested = async (runId: string) => {
    const [row] = await db.sql`select 1 from attestations where verification_run_id = ${runId}`;
    return row !== undefined;
  };

  it("sequences in one of two processes, and in the other once the first stops", async () => {
    const first = startAttestationSequencer(services, 20);
    sequencers.push(first);
    await until("sequencing", () => first.sequencing, 5_000);
    const second = startAttestationSequencer(services, 20);
    sequencers.push(second);

    const before = await finishRun();
    await until("attested", () => attested(before), 5_000);
    expect(first.sequencing).toBe(true);
    expect(second.sequencing).toBe(false);

    await first.stop();
    expect(first.sequencing).toBe(false);
    const after = await finishRun();
    await until("taken over", () => second.sequencing, TAKE_OVER_MS + 3_000);
    await until("attested after the take-over", () => attested(after), 5_000);
    const [{ n }] = await db.sql<{ n: number }[]>`select count(*)::int as n from attestation_queue`;
    expect(n).toBe(0);
  }, 30_000);
});

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { svcWith } from "../../../app/test/cli/support-run.ts";
import { sequenceAttestations } from "../../src/attestations/sequence-attestations.ts";
import { at, BAD_ASSIGNMENT, sealing, T0, useSealedFixture } from "../sealing/support/sealed-fixture.ts";
import { describeWithDatabase } from "../support/test-database.ts";

/**
 * Issue 34: sealed stages are attested by hash and replayable once released. A final_only run's
 * attestation commits to its outcome; the participant's replay waits while the outcome and the
 * sealed reference input are withheld, and after their release replays the very run to the
 * values the service opens against the signed commitments.
 */
describeWithDatabase("svc verify --replay of a sealed run", () => {
  const f = useSealedFixture();

  it("waits while the outcome is withheld, then replays to the released values", async () => {
    f.setNow(T0);
    await f.sealedProblem(
      "replay-sealed",
      sealing({ mode: "final_only", releaseAt: at(3), closesAt: at(2), sealedUntil: at(3) }),
    );
    const run = await f.submit(f.solver, "replay-sealed", BAD_ASSIGNMENT);
    await f.execute(run.verification_run_id);
    await sequenceAttestations(f.services);

    const home = mkdtempSync(join(tmpdir(), "svc-sealed-replay-"));
    const replay = async () => {
      const result = await svcWith(
        {
          env: {
            SVC_BASE_URL: f.url,
            SVC_TOKEN: f.solver.token,
            HOME: home,
            XDG_CONFIG_HOME: join(home, "c"),
          },
        },
        ["verify", "--replay", run.verification_run_id],
      );
      return { code: result.code, output: result.stdout + result.stderr };
    };

    const sealed = await replay();
    expect(sealed.output).toContain("withholds this sealed run's outcome until release");
    expect(sealed.code).toBe(1);

    // Released: the score release date and the end of sealing have passed; nothing was re-signed.
    f.setNow(at(3));
    const released = await replay();
    expect(released.output).toContain(`SAME: every sandbox stage of ${run.verification_run_id}`);
    expect(released.output).toMatch(/same check: refuted/);
    expect(released.code).toBe(0);
    const [{ n }] = await f.services.sql<{ n: number }[]>`
      select count(*)::int as n from attestations where verification_run_id = ${run.verification_run_id}`;
    expect(n).toBe(1);
  }, 120_000);
});

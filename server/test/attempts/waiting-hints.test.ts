import { expect, it } from "vitest";
import { RUN_POLL_INTERVAL_MS } from "../../src/verification/run-waiting.ts";
import { envelopeOf } from "../edges/mcp/support/mcp-clients.ts";
import { describeWithDatabase } from "../support/test-database.ts";
import { useSolvingFixture } from "./support/solving-fixture.ts";

/** Issue 36: how to wait for a run, and a second active Attempt on one Problem named. */
describeWithDatabase("waiting for runs and stacked Attempts", () => {
  const f = useSolvingFixture();

  it("names the caller's other active Attempts on the Problem and says how to wait for a run", async () => {
    const client = f.as(f.rival);
    const first = envelopeOf(await client.callTool("start_attempt", { problem: "graded" }));
    expect(first).not.toHaveProperty("other_active_attempts");
    expect(first.waiting_for_runs).toMatchObject({
      poll: { tool: "get_verification", interval_ms: RUN_POLL_INTERVAL_MS },
      wake: {
        subscribe: {
          method: "events/subscribe",
          params: { kinds: ["verification.run_finished"], delivery: { type: "stream" } },
        },
      },
    });
    const firstId = (first.attempt as { id: string }).id;
    const second = envelopeOf(await client.callTool("start_attempt", { problem: "graded" }));
    expect(second.other_active_attempts).toEqual([firstId]);
    expect(second.hint).toContain(firstId);

    // A submission's run, queued (no worker runs in this test): get_verification says how to wait.
    const attemptId = (second.attempt as { id: string }).id;
    const upload = async (filename: string, media_type: string, content_text: string) =>
      (
        envelopeOf(
          await client.callTool("upload_artifact", {
            attempt_id: attemptId,
            filename,
            media_type,
            content_text,
          }),
        ).artifact as { id: string }
      ).id;
    const submitted = envelopeOf(
      await client.callTool("create_submission", {
        attempt_id: attemptId,
        artifacts: [
          { role: "answer", artifact_id: await upload("answer.json", "application/json", "42") },
          { role: "proof", artifact_id: await upload("proof.txt", "text/plain", "Because.") },
        ],
      }),
    );
    const run = envelopeOf(
      await client.callTool("get_verification", { verification_run_id: submitted.verification_run_id }),
    );
    expect(run.verification).toMatchObject({ status: "queued" });
    expect(run.waiting).toMatchObject({ poll: { interval_ms: RUN_POLL_INTERVAL_MS } });
  });
});

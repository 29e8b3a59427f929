import { describe, expect, it } from "vitest";
import { type RawRun, settleOutcome } from "../../src/index.ts";
import { scriptJob } from "./job-fixtures.ts";

const FORK_REFUSED = "    os.fork()\nBlockingIOError: [Errno 11] Resource temporarily unavailable\n";

function killedAtTheWallClock(log: string, signal = "SIGKILL"): RawRun {
  return {
    backend: "docker",
    exit_code: null,
    signal,
    duration_ms: 4000,
    limit: signal === "SIGKILL" ? "timeout" : null,
    output: [],
    log: { bytes: new TextEncoder().encode(log), truncated: false },
  };
}

describe("settleOutcome names the limit that ended a run", () => {
  it("calls a run the wall clock ended after refused forks a process-limit run (a fork bomb)", () => {
    const outcome = settleOutcome(scriptJob("pass"), killedAtTheWallClock(FORK_REFUSED.repeat(20)));
    expect(outcome).toMatchObject({ result: "inconclusive", limit: "processes", exit_code: null });
  });

  it("keeps the wall clock when the log shows no refused fork", () => {
    const outcome = settleOutcome(scriptJob("pass"), killedAtTheWallClock("still thinking...\n"));
    expect(outcome).toMatchObject({ result: "inconclusive", limit: "timeout" });
  });

  it("keeps the CPU limit of SIGXCPU whatever the log says", () => {
    const outcome = settleOutcome(scriptJob("pass"), killedAtTheWallClock(FORK_REFUSED, "SIGXCPU"));
    expect(outcome).toMatchObject({ result: "inconclusive", limit: "timeout" });
    expect(outcome.reason).toContain("CPU time");
  });
});

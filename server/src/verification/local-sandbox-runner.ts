import type { CheckerJob, CheckerOutcome, RuntimeBinding } from "@svc/app/sandbox/checker-job.ts";
import { type Backends, runChecker } from "@svc/app/sandbox/run-checker.ts";
import type { SandboxEngines, SandboxRunner } from "./sandbox-runner.ts";

/**
 * The sandbox runner of one service process: app/src/sandbox's backends on this machine. Engines
 * are probed once, on first use, unless given (tests pin them).
 */
export function localSandboxRunner(
  options: { backends?: Backends; engines?: () => Promise<SandboxEngines> } = {},
): SandboxRunner {
  const backends = options.backends ?? {};
  let probed: Promise<SandboxEngines> | undefined;
  return {
    engines() {
      probed ??=
        options.engines?.() ??
        Promise.resolve({ docker: backends.docker !== undefined, bwrap: backends.bwrap !== undefined });
      return probed;
    },
    run(job: CheckerJob, binding: RuntimeBinding | null): Promise<CheckerOutcome> {
      return runChecker(job, { binding, backends });
    },
  };
}

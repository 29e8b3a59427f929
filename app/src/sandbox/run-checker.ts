import type { RuntimeBackend } from "@svc/schemas";
import { createBuiltinBackend, isBuiltin } from "./builtin-backend.ts";
import type {
  BackendName,
  BackendRunOptions,
  CheckerJob,
  CheckerOutcome,
  KeepEvidence,
  RuntimeBinding,
  SandboxBackend,
} from "./checker-job.ts";

/** The backends a caller has, by name; builtin is created when absent. */
export type Backends = Partial<Record<"builtin" | RuntimeBackend, SandboxBackend>>;

export interface RunCheckerOptions {
  /** How script runtimes and images run here; null when nothing is bound (no bwrap, no docker). */
  binding: RuntimeBinding | null;
  backends: Backends;
  /** Streams evidence files to the caller's store as they are read (script and image backends). */
  keepEvidence?: KeepEvidence;
}

/**
 * Runs one job on the right backend: builtins in process, everything else on the bound backend.
 * Never throws for a run: an unbound runtime is `inconclusive` (a stage this machine cannot
 * execute, spec 2.4) and a backend that fails to start or crashes is `error` (the service's own
 * machinery), both with the reason.
 */
export async function runChecker(job: CheckerJob, options: RunCheckerOptions): Promise<CheckerOutcome> {
  const { binding, backends, keepEvidence } = options;
  if (isBuiltin(job.implementation.image_ref)) {
    const builtin = backends.builtin ?? createBuiltinBackend();
    return guarded(builtin, job, null);
  }
  if (binding === null) {
    return machineOutcome(
      "inconclusive",
      `${job.implementation.image_ref} cannot run here: no sandbox is bound (install bubblewrap or start Docker)`,
      "none",
    );
  }
  const backend = backends[binding.backend];
  if (backend === undefined) {
    return machineOutcome(
      "error",
      `the ${binding.backend} backend is bound but was not provided`,
      binding.backend,
    );
  }
  return guarded(backend, job, binding, { keepEvidence });
}

async function guarded(
  backend: SandboxBackend,
  job: CheckerJob,
  binding: RuntimeBinding | null,
  options: BackendRunOptions = {},
): Promise<CheckerOutcome> {
  try {
    return await backend.run(job, binding, options);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return machineOutcome("error", `the ${backend.name} backend failed: ${message}`, backend.name);
  }
}

/** An outcome the service decided without a checker run: inconclusive (cannot run) or error (machinery). */
export function machineOutcome(
  result: "inconclusive" | "error",
  reason: string,
  backend: BackendName,
): CheckerOutcome {
  return {
    result,
    score: null,
    summary: reason,
    reason,
    limit: null,
    backend,
    exit_code: null,
    duration_ms: null,
    evidence_hash: null,
    evidence: [],
    log: { bytes: new Uint8Array(0), truncated: false },
  };
}

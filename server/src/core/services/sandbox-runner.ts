import type { CheckerJob, CheckerOutcome, KeepEvidence, RuntimeBinding } from "@svc/app";

/** The sandbox engines this machine has (spec 3: docker when an engine answers, else bwrap). */
export interface SandboxEngines {
  docker: boolean;
  bwrap: boolean;
  /**
   * Whether bubblewrap may run an unbound script runtime on the host's own interpreter (whose
   * bytes no record can name): only with SVC_BWRAP_HOST_INTERPRETER=1, a trial's opt-in. Otherwise
   * such a runtime is unbound until an operator binds it to an image (docs/sandbox.md).
   */
  hostInterpreter: boolean;
}

/** Whose work a checker run is, for the per-user cap of the sandbox budget; null: the service's own. */
export interface RunOwner {
  user_id: string | null;
}

/**
 * What the worker runs checkers through: app/src/sandbox behind an interface, so the service
 * picks engines once per process and a deployment can put a remote runner here later.
 */
export interface SandboxRunner {
  engines(): Promise<SandboxEngines>;
  /** Ends what the backends keep warm (pooled disks and containers); called at shutdown. */
  close?(): Promise<void>;
  /**
   * Unpacks a runtime image's root on this host for bubblewrap (app/src/sandbox/runtime-rootfs.ts),
   * or finds it already there; refused when `expected` (a ChainID) names other bytes. Absent: this
   * runner cannot run images under bubblewrap.
   */
  prepareRuntime?(source: string, expected?: string): Promise<{ chainId: string; rootfs: string }>;
  /** `keepEvidence` stores each evidence file as it is read from the run's disk (the blob store's put). */
  run(
    job: CheckerJob,
    binding: RuntimeBinding | null,
    owner?: RunOwner,
    keepEvidence?: KeepEvidence,
  ): Promise<CheckerOutcome>;
}

import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CheckerJob, CheckerOutcome, KeepEvidence, RuntimeBinding } from "@svc/app";
import {
  type Backends,
  bwrapRuns,
  createBwrapBackend,
  createDockerBackend,
  pingDocker,
  prepareRuntimeRootfs,
  runChecker,
  UsageError,
} from "@svc/app";
import Docker from "dockerode";
import { warmPoolTakes } from "../core/metrics/metrics.ts";
import type { RunOwner, SandboxEngines, SandboxRunner } from "../core/services/sandbox-runner.ts";

/**
 * The sandbox runner of one service process: app/src/sandbox's backends on this machine. Unless
 * `backends` are given, the engines are probed once, on first use: Docker when an engine answers
 * (DOCKER_HOST or the default socket), bubblewrap when it can create its namespaces. Builtins
 * always run in process. `SVC_SANDBOX=bwrap|docker|none` keeps only that one (none: builtins only).
 */
export function localSandboxRunner(
  options: {
    backends?: Backends;
    env?: Readonly<Record<string, string | undefined>>;
    /** Where run directories go (prepareSandboxRunDirectory); default the OS temp dir. */
    runDir?: string;
    /** Where runtime images are unpacked for bubblewrap, per ChainID; default `<OS temp>/svc-runtimes`. */
    runtimeDir?: string;
  } = {},
): SandboxRunner {
  const poolSize = sandboxPoolSize(options.env ?? process.env);
  const runtimeDir = options.runtimeDir ?? join(tmpdir(), "svc-runtimes");
  // One unpack per image at a time in this process; later runs find it done.
  const unpacking = new Map<string, Promise<{ chainId: string; rootfs: string }>>();
  const prepareRuntime = (source: string, expected?: string) => {
    const key = expected ?? source;
    let pending = unpacking.get(key);
    if (!pending) {
      pending = prepareRuntimeRootfs(source, runtimeDir, expected);
      unpacking.set(key, pending);
      pending.catch(() => unpacking.delete(key));
    }
    return pending;
  };
  let probed: Promise<Backends> | undefined;
  const backends = () => {
    probed ??= options.backends
      ? Promise.resolve(options.backends)
      : probeBackends(options.env ?? process.env, options.runDir, poolSize);
    return probed;
  };
  return {
    async engines(): Promise<SandboxEngines> {
      const found = await backends();
      return {
        docker: found.docker !== undefined,
        bwrap: found.bwrap !== undefined,
        // Off unless asked for: the host's interpreter is bytes no record can name (docs/sandbox.md).
        hostInterpreter: (options.env ?? process.env).SVC_BWRAP_HOST_INTERPRETER === "1",
      };
    },
    async close() {
      if (probed === undefined) return;
      const found = await probed;
      await Promise.all([found.docker?.close?.(), found.bwrap?.close?.()]);
    },
    prepareRuntime,
    async run(
      job: CheckerJob,
      binding: RuntimeBinding | null,
      _owner?: RunOwner,
      keepEvidence?: KeepEvidence,
    ): Promise<CheckerOutcome> {
      // A runtime bound to an image runs in its root, unpacked on this host on first use.
      if (binding?.backend === "bwrap" && binding.source && binding.bytes_digest && !binding.rootfs) {
        const { rootfs } = await prepareRuntime(binding.source, binding.bytes_digest);
        binding = { ...binding, rootfs };
      }
      return await runChecker(job, {
        binding,
        backends: await backends(),
        ...(keepEvidence ? { keepEvidence } : {}),
      });
    },
  };
}

async function probeBackends(
  env: Readonly<Record<string, string | undefined>>,
  tempDir: string | undefined,
  poolSize: number | undefined,
): Promise<Backends> {
  const only = env.SVC_SANDBOX;
  const found: Backends = {};

  if (only === undefined || only === "docker") {
    const docker = new Docker();
    if (await pingDocker(docker))
      found.docker = createDockerBackend({
        docker,
        ...(tempDir ? { tempDir } : {}),
        ...(poolSize !== undefined ? { poolSize } : {}),
        onWarmPoolTake: (warm) => warmPoolTakes.labels("docker", warm ? "hit" : "miss").inc(),
      });
  }
  if ((only === undefined || only === "bwrap") && bwrapRuns())
    found.bwrap = createBwrapBackend({
      ...(tempDir ? { tempDir } : {}),
      ...(poolSize !== undefined ? { diskPoolSize: poolSize } : {}),
      onWarmPoolTake: (warm) => warmPoolTakes.labels("bwrap", warm ? "hit" : "miss").inc(),
    });
  return found;
}

/**
 * SVC_SANDBOX_POOL_SIZE: warm sandboxes kept per image and limits (started docker containers,
 * started bwrap sandboxes with their disks mounted), default the backends' own (2); 0 makes each
 * run's on demand.
 */
function sandboxPoolSize(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const raw = env.SVC_SANDBOX_POOL_SIZE;
  if (raw === undefined || raw === "") return undefined;
  const size = Number(raw);
  if (!/^\d+$/.test(raw) || size > 64) {
    throw new UsageError(`SVC_SANDBOX_POOL_SIZE=${raw} is not valid: use a whole number from 0 to 64`);
  }
  return size;
}

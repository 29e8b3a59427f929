import { spawn } from "node:child_process";
import { lstatSync, readlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { PYTHON_RUNTIME } from "../catalogue/implementation-catalogue.ts";
import { type BoundedSink, joinLog, LOG_CEILING } from "./bounded-sink.ts";
import type { CheckerJob, CheckerOutcome, KeepEvidence, SandboxBackend } from "./checker-job.ts";
import { layOutInput } from "./lay-out-input.ts";
import { readOutputDir } from "./read-output-dir.ts";
import { machineOutcome } from "./run-checker.ts";
import { settleOutcome, watchdogOutcome } from "./settle-outcome.ts";
import {
  createWarmSandboxPool,
  killSandbox,
  SANDBOX_POOL_SIZE,
  type SandboxPaths,
  type WarmSandbox,
} from "./warm-sandbox-pool.ts";

/** Processes the checker may have at once (RLIMIT_NPROC inside its own user namespace). */
export const SANDBOX_PROCESSES = 64;

/** The uid and gid the sandbox runs as on the host when the caller is root (nobody/nogroup). */
export const SANDBOX_UID = 65534;

export interface BwrapBackendOptions {
  /** The bwrap binary; default `bwrap` on PATH. */
  bwrap?: string;
  /** Where per-run directories go (each private, 0700); default the OS temp dir. */
  tempDir?: string;
  /** Capture ceiling of the stage log. */
  logCeiling?: number;
  /**
   * Sandboxes kept started ahead of runs (their disk formatted and mounted, the supervisor
   * waiting), per interpreter and disk size (warm-sandbox-pool.ts); 0: each run's on demand.
   */
  diskPoolSize?: number;
  /** Told at each run whether a warm sandbox served it (metrics). */
  onWarmPoolTake?: ((warm: boolean) => void) | undefined;
}

/**
 * The `bwrap` backend: script checkers on `svc-runtime/python:1`, realised as the host's python3
 * (the binding's `local_image`, a path under /usr) inside bubblewrap. Isolation (docs/sandbox.md):
 *
 * - namespaces: user, pid, net (no interfaces but loopback), ipc, uts, cgroup; `--new-session`
 *   (no terminal injection), `--die-with-parent`; when the caller is root, bwrap itself runs as
 *   uid/gid 65534 so the sandbox's processes are an unprivileged host user and RLIMIT_NPROC holds.
 * - filesystem: /usr read-only (with the /bin, /lib, /lib64, /sbin links), /etc/ld.so.cache
 *   read-only, fresh /proc and /dev, `/input` read-only, `/output` and `/tmp` bound from the run's
 *   disk (run-disk.ts: disk_mb on disk for both, never host memory), nothing else of the host.
 * - limits, set by the supervisor on the checker: RLIMIT_AS = memory_mb (per process),
 *   RLIMIT_CPU = timeout_seconds x vcpu, RLIMIT_NPROC = 64, RLIMIT_FSIZE = disk_mb, no core
 *   files; the wall clock (timeout_seconds) is kept by the host, which kills bwrap, and the pid
 *   namespace dies with its init.
 */
/** The bwrap backend, and a wait for its pool's background work (benches measure warm runs). */
export interface BwrapBackend extends SandboxBackend {
  settled(): Promise<void>;
  close(): Promise<void>;
}

export function createBwrapBackend(options: BwrapBackendOptions = {}): BwrapBackend {
  const bwrap = options.bwrap ?? "bwrap";
  const logCeiling = options.logCeiling ?? LOG_CEILING;
  // bwrap runs as the sandbox uid when we are root: it owns the run's private directory.
  const asRoot = process.getuid?.() === 0;
  const sandboxes = createWarmSandboxPool({
    tempDir: options.tempDir ?? tmpdir(),
    size: options.diskPoolSize ?? SANDBOX_POOL_SIZE,
    logCeiling,
    owner: asRoot ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : undefined,
    onTake: options.onWarmPoolTake,
    start: (spec, paths) =>
      spawn(bwrap, sandboxArgs(spec, paths), {
        stdio: ["pipe", "pipe", "pipe", "pipe"],
        detached: true,
        env: {},
        ...(asRoot ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : {}),
      }),
  });
  return {
    name: "bwrap",
    settled: () => sandboxes.settled(),
    close: () => sandboxes.close(),
    run: async (job, binding, runOptions = {}) => {
      if (job.implementation.image_ref !== PYTHON_RUNTIME) {
        return machineOutcome(
          "inconclusive",
          `the bwrap backend runs ${PYTHON_RUNTIME} script checkers only; ${job.implementation.image_ref} needs Docker`,
          "bwrap",
        );
      }
      const sandbox = await sandboxes.take({
        // In a bound image's root its own interpreter runs; else the host's (the binding's path).
        python: binding?.rootfs ? IMAGE_PYTHON : (binding?.local_image ?? "/usr/bin/python3"),
        rootfs: binding?.rootfs,
        diskBytes: job.implementation.limits.disk_mb * 1_048_576,
      });
      try {
        return await runInSandbox(job, sandbox, runOptions.keepEvidence, logCeiling);
      } finally {
        // Killing what is left, unmounting and removing the run directory follow the verdict.
        sandboxes.discard(sandbox);
      }
    },
  };
}

/** The interpreter of `svc-runtime/python:1` inside its image. */
const IMAGE_PYTHON = "/usr/bin/python3";

/** bwrap's arguments for a sandbox: the isolation, the run's binds, the supervisor waiting on stdin. */
function sandboxArgs(spec: { python: string; rootfs?: string | undefined }, paths: SandboxPaths): string[] {
  const python = spec.python;
  return [
    ...(spec.rootfs ? imageRootIsolation(spec.rootfs) : bwrapIsolation()),
    "--bind",
    paths.disk.scratch,
    "/tmp",
    "--bind",
    paths.disk.output,
    "/output",
    "--ro-bind",
    paths.inputDir,
    "/input",
    "--ro-bind",
    paths.supervisor,
    "/.svc/supervise.py",
    "--chdir",
    "/",
    "--",
    python,
    "-I",
    "-S",
    "/.svc/supervise.py",
  ];
}

interface SupervisorReport {
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
}

async function runInSandbox(
  job: CheckerJob,
  sandbox: WarmSandbox,
  keepEvidence: KeepEvidence | undefined,
  logCeiling: number,
): Promise<CheckerOutcome> {
  const { limits } = job.implementation;
  const { disk, stdout, stderr, report } = sandbox;
  await layOutInput(job, sandbox.inputDir);
  // The run: memory bytes, cpu seconds, file bytes, processes, argv (supervisor-script.ts).
  const run = [
    String(limits.memory_mb * 1_048_576),
    String(Math.ceil(limits.timeout_seconds * limits.vcpu)),
    String(limits.disk_mb * 1_048_576),
    String(SANDBOX_PROCESSES),
    ...job.implementation.entrypoint,
  ];
  if (run.some((field) => field.includes("\0"))) throw new Error("the checker's argv holds a NUL byte");
  const started = performance.now();
  sandbox.child.stdin?.end(run.join("\0"));

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killSandbox(sandbox);
  }, limits.timeout_seconds * 1000);
  let diskFilled = false;
  const unwatch = disk.watch(() => {
    diskFilled = true;
    killSandbox(sandbox);
  });
  const exit = await sandbox.exited;
  clearTimeout(timer);
  unwatch();
  const wall = Math.round(performance.now() - started);
  if (exit.error) throw new Error(`bwrap did not start: ${exit.error.message}`);
  const log = joinLog(stdout, stderr, logCeiling);

  if (timedOut || diskFilled) {
    return watchdogOutcome(job, {
      backend: "bwrap",
      duration_ms: wall,
      limit: timedOut ? "timeout" : "disk",
      log,
    });
  }
  const parsed = parseReport(report);
  if (parsed === null) {
    const text = stderr.bytes().toString("utf8");
    if (
      /^bwrap: /m.test(text) ||
      exit.code === 127 ||
      (report.seen === 0 && /svc sandbox: cannot start/.test(text))
    ) {
      throw new Error(`the sandbox did not start (bwrap exit ${exit.code}): ${text.slice(0, 500)}`);
    }
    return settleOutcome(job, {
      backend: "bwrap",
      exit_code: null,
      signal: null,
      duration_ms: wall,
      limit: report.truncated ? "output" : null,
      output: [],
      log: {
        bytes: Buffer.concat([log.bytes, Buffer.from("\nsvc sandbox: the supervisor's report was lost\n")]),
        truncated: log.truncated,
      },
    });
  }
  const tree = await readOutputDir(disk.output, { keepEvidence });
  const filled = await disk.full();
  return settleOutcome(job, {
    backend: "bwrap",
    exit_code: parsed.exit_code,
    signal: parsed.signal,
    duration_ms: parsed.duration_ms,
    limit: filled ? "disk" : tree.overCeiling ? "output" : null,
    output: tree.entries,
    log,
  });
}

function parseReport(report: BoundedSink): SupervisorReport | null {
  if (report.truncated || report.seen === 0) return null;
  try {
    const value = JSON.parse(report.bytes().toString("utf8")) as SupervisorReport;
    return typeof value === "object" && value !== null && "duration_ms" in value ? value : null;
  } catch {
    return null;
  }
}

/** Top-level system directories python may need: links into /usr on merged-/usr hosts, else directories. */
const TOP_DIRS = ["/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"] as const;

function topDir(path: string): string[] {
  try {
    if (lstatSync(path).isSymbolicLink()) return ["--symlink", readlinkSync(path), path];
    return ["--ro-bind", path, path];
  } catch {
    return [];
  }
}

/** The namespaces every bwrap run gets (docs/sandbox.md lists them). */
const NAMESPACES = [
  "--unshare-user",
  "--unshare-pid",
  "--unshare-net",
  "--unshare-ipc",
  "--unshare-uts",
  "--unshare-cgroup-try",
  "--uid",
  String(SANDBOX_UID),
  "--gid",
  String(SANDBOX_UID),
  "--hostname",
  "sandbox",
  "--new-session",
  "--die-with-parent",
];

/**
 * A bound image's flags: its whole unpacked root read-only as `/` (its interpreter, libraries and
 * /etc: nothing of the host's), fresh /proc and /dev; the run's binds go on the mount points
 * runtime-rootfs.ts made.
 */
export function imageRootIsolation(rootfs: string): string[] {
  return [...NAMESPACES, "--ro-bind", rootfs, "/", "--proc", "/proc", "--dev", "/dev"];
}

/** The namespace and filesystem flags of a run on the host's interpreter (docs/sandbox.md lists them). */
export function bwrapIsolation(): string[] {
  return [
    ...NAMESPACES,
    "--ro-bind",
    "/usr",
    "/usr",
    ...TOP_DIRS.flatMap(topDir),
    "--ro-bind-try",
    "/etc/ld.so.cache",
    "/etc/ld.so.cache",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
  ];
}

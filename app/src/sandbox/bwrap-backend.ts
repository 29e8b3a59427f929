import { spawn } from "node:child_process";
import { lstatSync, readlinkSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PYTHON_RUNTIME } from "../catalogue/implementation-catalogue.ts";
import { BoundedSink, joinLog, LOG_CEILING } from "./bounded-sink.ts";
import type { CheckerJob, CheckerOutcome, KeepEvidence, SandboxBackend } from "./checker-job.ts";
import { layOutInput } from "./lay-out-input.ts";
import { readOutputDir } from "./read-output-dir.ts";
import { machineOutcome } from "./run-checker.ts";
import { makeRunDirectory } from "./run-directory.ts";
import type { RunDisk } from "./run-disk.ts";
import { createRunDiskPool, DISK_POOL_SIZE, type RunDiskPool } from "./run-disk-pool.ts";
import { settleOutcome } from "./settle-outcome.ts";
import { SUPERVISOR_SOURCE } from "./supervisor-script.ts";

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
  /** Run disks kept formatted and mounted ahead of runs, per disk size (run-disk-pool.ts); 0: none. */
  diskPoolSize?: number;
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
/** The bwrap backend, and a wait for its disk pool's background work (benches measure warm runs). */
export interface BwrapBackend extends SandboxBackend {
  settled(): Promise<void>;
  close(): Promise<void>;
}

export function createBwrapBackend(options: BwrapBackendOptions = {}): BwrapBackend {
  const bwrap = options.bwrap ?? "bwrap";
  const logCeiling = options.logCeiling ?? LOG_CEILING;
  const disks = createRunDiskPool({
    tempDir: options.tempDir ?? tmpdir(),
    size: options.diskPoolSize ?? DISK_POOL_SIZE,
  });
  return {
    name: "bwrap",
    settled: () => disks.settled(),
    close: () => disks.close(),
    run: async (job, binding, runOptions = {}) => {
      if (job.implementation.image_ref !== PYTHON_RUNTIME) {
        return machineOutcome(
          "inconclusive",
          `the bwrap backend runs ${PYTHON_RUNTIME} script checkers only; ${job.implementation.image_ref} needs Docker`,
          "bwrap",
        );
      }
      const python = binding?.local_image ?? "/usr/bin/python3";
      // bwrap runs as the sandbox uid when we are root: it owns the run's private directory.
      const asRoot = process.getuid?.() === 0;
      const root = await makeRunDirectory(
        options.tempDir ?? tmpdir(),
        "svc-bwrap-",
        asRoot ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : undefined,
      );
      try {
        return await runInBwrap(job, disks, {
          bwrap,
          python,
          root,
          logCeiling,
          keepEvidence: runOptions.keepEvidence,
        });
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    },
  };
}

interface RunSettings {
  bwrap: string;
  python: string;
  root: string;
  logCeiling: number;
  keepEvidence: KeepEvidence | undefined;
}

interface SupervisorReport {
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
}

/** The supervisor's report is three numbers; anything longer is not one. */
const REPORT_CEILING = 64 * 1024;

async function runInBwrap(
  job: CheckerJob,
  disks: RunDiskPool,
  settings: RunSettings,
): Promise<CheckerOutcome> {
  const asRoot = process.getuid?.() === 0;
  const disk = await disks.take(
    settings.root,
    job.implementation.limits.disk_mb * 1_048_576,
    asRoot ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : undefined,
  );
  try {
    return await runOnDisk(job, settings, disk);
  } finally {
    await disk.release();
  }
}

async function runOnDisk(job: CheckerJob, settings: RunSettings, disk: RunDisk): Promise<CheckerOutcome> {
  const { limits } = job.implementation;
  const inputDir = join(settings.root, "input");
  await layOutInput(job, inputDir);
  const supervisor = join(settings.root, "supervise.py");
  await writeFile(supervisor, SUPERVISOR_SOURCE, { mode: 0o444 });
  const diskBytes = limits.disk_mb * 1_048_576;
  const config = {
    memory_bytes: limits.memory_mb * 1_048_576,
    cpu_seconds: limits.timeout_seconds * limits.vcpu,
    file_bytes: diskBytes,
    processes: SANDBOX_PROCESSES,
  };
  const args = [
    ...bwrapIsolation(),
    "--bind",
    disk.scratch,
    "/tmp",
    "--bind",
    disk.output,
    "/output",
    "--ro-bind",
    inputDir,
    "/input",
    "--ro-bind",
    supervisor,
    "/.svc/supervise.py",
    "--chdir",
    "/",
    "--",
    settings.python,
    "-I",
    "-S",
    "/.svc/supervise.py",
    JSON.stringify(config),
    ...job.implementation.entrypoint,
  ];
  const asRoot = process.getuid?.() === 0;
  const started = performance.now();
  const child = spawn(settings.bwrap, args, {
    stdio: ["ignore", "pipe", "pipe", "pipe"],
    detached: true,
    env: {},
    ...(asRoot ? { uid: SANDBOX_UID, gid: SANDBOX_UID } : {}),
  });
  const stdout = new BoundedSink(settings.logCeiling);
  const stderr = new BoundedSink(settings.logCeiling);
  const report = new BoundedSink(REPORT_CEILING);
  child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
  (child.stdio[3] as NodeJS.ReadableStream | null)?.on("data", (chunk: Buffer) => report.push(chunk));

  let timedOut = false;
  const kill = () => {
    try {
      // The process group is bwrap alone (the sandbox has its own session); the pid namespace
      // dies with its init when bwrap goes.
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, limits.timeout_seconds * 1000);
  let diskFilled = false;
  const unwatch = disk.watch(() => {
    diskFilled = true;
    kill();
  });
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>(
    (resolve) => {
      child.once("error", (error) => resolve({ code: null, signal: null, error }));
      child.once("close", (code, signal) => resolve({ code, signal }));
    },
  );
  clearTimeout(timer);
  unwatch();
  const wall = Math.round(performance.now() - started);
  if (exit.error) throw new Error(`bwrap did not start: ${exit.error.message}`);
  const log = joinLog(stdout, stderr, settings.logCeiling);

  if (timedOut || diskFilled) {
    return settleOutcome(job, {
      backend: "bwrap",
      exit_code: null,
      signal: "SIGKILL",
      duration_ms: wall,
      limit: timedOut ? "timeout" : "disk",
      output: [],
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
  const tree = await readOutputDir(disk.output, { keepEvidence: settings.keepEvidence });
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

/** The namespace and filesystem flags every bwrap run gets (docs/sandbox.md lists them). */
export function bwrapIsolation(): string[] {
  return [
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

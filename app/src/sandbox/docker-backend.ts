import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import Docker from "dockerode";
import { PYTHON_RUNTIME } from "../catalogue/implementation-catalogue.ts";
import { BoundedSink, joinLog, LOG_CEILING } from "./bounded-sink.ts";
import type {
  CheckerJob,
  CheckerOutcome,
  KeepEvidence,
  RuntimeBinding,
  SandboxBackend,
} from "./checker-job.ts";
import { layOutInput } from "./lay-out-input.ts";
import { readOutputDir } from "./read-output-dir.ts";
import type { RunDisk } from "./run-disk.ts";
import { type RawRun, settleOutcome, watchdogOutcome } from "./settle-outcome.ts";
import {
  CONTAINER_POOL_SIZE,
  createWarmContainerPool,
  DOCKER_USER,
  type SupervisedIo,
  type WarmContainerPool,
} from "./warm-container-pool.ts";
import { watchProcessExit } from "./watch-process-exit.ts";

/** Entrypoint marker for images whose own ENTRYPOINT/CMD runs (check-contract.ts writes it). */
export const IMAGE_ENTRYPOINT = "@image-entrypoint";

export interface DockerBackendOptions {
  /** The engine; default `new Docker()` (DOCKER_HOST, else the default socket). */
  docker?: Docker;
  /** Where per-run input directories go; the engine must see the same path (a local engine). */
  tempDir?: string;
  logCeiling?: number;
  /** Started containers kept ready per image and limits (warm-container-pool.ts); 0: none. */
  poolSize?: number;
  /**
   * Script checkers on the python runtime run under the supervisor as PID 1 (default true);
   * false runs them as an exec beside the hold loop, as images' own entrypoints always run.
   */
  superviseScripts?: boolean;
  /** Told at each run whether a warm container served it (metrics). */
  onWarmPoolTake?: ((warm: boolean) => void) | undefined;
}

/** The docker backend, and a wait for its pool's background work (benches measure warm runs). */
export interface DockerBackend extends SandboxBackend {
  /** The label of its containers (`svc.pool=<id>`), for a sweep or a leak check. */
  readonly label: string;
  settled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The `docker` backend (dockerode). Script checkers on the python runtime run under the service's
 * supervisor as a warm container's PID 1 (superviseChecker, below); everything else as follows.
 * Per run: a started container from the bound image
 * (`local_image`: an image id or a digest-pinned reference) whose PID 1 is a 129-byte pause loop
 * (hold-binary.ts), taken from a warm pool (warm-container-pool.ts: no network, memory =
 * memory_mb with no swap, NanoCpus = vcpu, PidsLimit 64, read-only root, /output and /tmp bound
 * from the run's disk (run-disk.ts: disk_mb on disk), all capabilities dropped, no-new-privileges,
 * user 65534). The run's inputs are written into the folder bound read-only at /input, and the
 * checker runs as an exec in the container with stdout and stderr read through bounded sinks; on
 * the wall clock the container is killed. When the exec ends the container is killed and the host
 * reads /output from the disk; the container is then removed, never reused.
 */
export function createDockerBackend(options: DockerBackendOptions = {}): DockerBackend {
  const docker = options.docker ?? new Docker();
  const logCeiling = options.logCeiling ?? LOG_CEILING;
  const pool = createWarmContainerPool({
    docker,
    tempDir: options.tempDir ?? tmpdir(),
    size: options.poolSize ?? CONTAINER_POOL_SIZE,
    logCeiling,
    onTake: options.onWarmPoolTake,
  });
  return {
    name: "docker",
    run: async (job, binding, runOptions = {}) => {
      if (binding === null) throw new Error("the docker backend needs a runtime binding (the local image)");
      return await runInDocker(docker, pool, job, binding, {
        logCeiling,
        keepEvidence: runOptions.keepEvidence,
        superviseScripts: options.superviseScripts ?? true,
      });
    },
    label: pool.label,
    settled: () => pool.settled(),
    close: () => pool.close(),
  };
}

async function runInDocker(
  docker: Docker,
  pool: WarmContainerPool,
  job: CheckerJob,
  binding: RuntimeBinding,
  settings: { logCeiling: number; keepEvidence: KeepEvidence | undefined; superviseScripts: boolean },
): Promise<CheckerOutcome> {
  const { logCeiling, keepEvidence } = settings;
  const image = binding.local_image;
  // A script checker on the python runtime runs under the supervisor as the warm container's PID 1
  // (no exec through the engine); an image's own entrypoint runs as an exec beside the hold loop.
  const supervised =
    settings.superviseScripts &&
    job.implementation.image_ref === PYTHON_RUNTIME &&
    job.implementation.entrypoint[0] !== IMAGE_ENTRYPOINT;
  const slot = await pool.take({ image, limits: job.implementation.limits, supervised });
  try {
    const argv =
      job.implementation.entrypoint[0] === IMAGE_ENTRYPOINT ? slot.imageArgv : job.implementation.entrypoint;
    if (argv.length === 0) throw new Error(`image ${image} has no ENTRYPOINT or CMD to run`);
    await layOutInput(job, slot.inputDir);
    if (slot.supervised)
      return await superviseChecker(slot.container, slot.supervised, job, argv, slot.disk, keepEvidence);
    return await execChecker(docker, slot.container, job, argv, slot.disk, logCeiling, keepEvidence);
  } finally {
    pool.discard(slot);
  }
}

/**
 * A run in a supervised warm container: the limits and argv go to the supervisor on the
 * container's stdin (the limits the container enforces itself as 0), which forks the checker and
 * exits with its status once it and whatever it left are gone; PID 1 gone, the container has
 * stopped, so nothing can write on while the host reads /output. Same limits and outcome rules as
 * an exec: the wall clock or a full disk kill the container; 128 + n is death by signal n.
 */
async function superviseChecker(
  container: Docker.Container,
  io: SupervisedIo,
  job: CheckerJob,
  argv: string[],
  disk: RunDisk,
  keepEvidence: KeepEvidence | undefined,
): Promise<CheckerOutcome> {
  const { limits } = job.implementation;
  if (argv.some((arg) => arg.includes("\0"))) throw new Error("the checker's argv holds a NUL byte");
  let timedOut = false;
  let diskFilled = false;
  const started = performance.now();
  const stopped = container.wait();
  io.stream.end(["0", "0", "0", "0", ...argv].join("\0"));
  const timer = setTimeout(() => {
    timedOut = true;
    container.kill().catch(() => undefined);
  }, limits.timeout_seconds * 1000);
  const unwatch = disk.watch(() => {
    diskFilled = true;
    container.kill().catch(() => undefined);
  });
  const { StatusCode: status } = (await stopped) as { StatusCode: number };
  await io.ended;
  clearTimeout(timer);
  unwatch();
  const duration = Math.round(performance.now() - started);
  const log = joinLog(io.stdout, io.stderr, io.stdout.ceiling);
  if (timedOut || diskFilled) {
    return watchdogOutcome(job, {
      backend: "docker",
      duration_ms: duration,
      limit: timedOut ? "timeout" : "disk",
      log,
    });
  }
  return await exitOutcome(job, disk, keepEvidence, { status, duration, log, oomKilled: false });
}

async function execChecker(
  docker: Docker,
  container: Docker.Container,
  job: CheckerJob,
  argv: string[],
  disk: RunDisk,
  logCeiling: number,
  keepEvidence: KeepEvidence | undefined,
): Promise<CheckerOutcome> {
  const { limits } = job.implementation;
  let timedOut = false;
  let diskFilled = false;
  const exec = await container.exec({
    Cmd: argv,
    User: DOCKER_USER,
    WorkingDir: "/output",
    Env: ["PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp", "LANG=C.UTF-8"],
    AttachStdout: true,
    AttachStderr: true,
  });
  const stdout = new BoundedSink(logCeiling);
  const stderr = new BoundedSink(logCeiling);
  const started = performance.now();
  const stream = await exec.start({ hijack: true, stdin: false });
  const timer = setTimeout(() => {
    timedOut = true;
    container.kill().catch(() => undefined);
    stream.destroy();
  }, limits.timeout_seconds * 1000);
  const unwatch = disk.watch(() => {
    diskFilled = true;
    container.kill().catch(() => undefined);
    stream.destroy();
  });
  docker.modem.demuxStream(stream, sinkWriter(stdout), sinkWriter(stderr));
  const ended = new Promise<void>((resolve) => {
    stream.once("end", resolve);
    stream.once("close", resolve);
    stream.once("error", () => resolve());
  });
  // The run ends with the checker's own process, not with the last process holding its output.
  let streamEnded = false;
  void ended.then(() => {
    streamEnded = true;
  });
  const pid = await mainProcessOf(exec, () => streamEnded);
  const unwatchMain = pid
    ? await watchProcessExit(pid, () => container.kill().catch(() => undefined))
    : () => {};
  await ended;
  unwatchMain();
  clearTimeout(timer);
  unwatch();
  const duration = Math.round(performance.now() - started);
  const log = joinLog(stdout, stderr, logCeiling);
  if (timedOut || diskFilled) {
    return watchdogOutcome(job, {
      backend: "docker",
      duration_ms: duration,
      limit: timedOut ? "timeout" : "disk",
      log,
    });
  }
  const [execInfo, state] = await Promise.all([exec.inspect(), container.inspect()]);
  // Nothing the checker left running may write while the host reads /output. The engine's kill
  // waits for the container to stop (tens of ms); it is needed only when something but the hold
  // loop is left, and the container is removed after the verdict anyway.
  if (execInfo.Running || !(await holdLoopAlone(state.State))) await container.kill().catch(() => undefined);
  return await exitOutcome(job, disk, keepEvidence, {
    status: execInfo.ExitCode ?? null,
    duration,
    log,
    // The engine marks OOMKilled only when PID 1 dies, and PID 1 here is the hold loop.
    oomKilled: state.State.OOMKilled,
  });
}

/**
 * The outcome of a checker that ended on its own with `status` (a shell's 128 + n is death by
 * signal n): nothing but the kernel's OOM killer sends SIGKILL inside the container before the
 * wall clock, so that is `memory`, as is an engine-reported OOM kill.
 */
async function exitOutcome(
  job: CheckerJob,
  disk: RunDisk,
  keepEvidence: KeepEvidence | undefined,
  run: { status: number | null; duration: number; log: RawRun["log"]; oomKilled: boolean },
): Promise<CheckerOutcome> {
  const tree = await readOutputDir(disk.output, { keepEvidence });
  const filled = await disk.full();
  const signal = run.status !== null && run.status > 128 ? signalName(run.status - 128) : null;
  return settleOutcome(job, {
    backend: "docker",
    exit_code: signal === null ? run.status : null,
    signal,
    duration_ms: run.duration,
    limit:
      run.oomKilled || signal === "SIGKILL"
        ? "memory"
        : filled || signal === "SIGXFSZ"
          ? "disk"
          : tree.overCeiling
            ? "output"
            : null,
    output: tree.entries,
    log: run.log,
  });
}

/**
 * True when the container's only process is its hold loop (PID 1), once the exec's main process
 * has ended: whatever the checker left (orphans, daemons, their descendants) hangs under PID 1,
 * the namespace's reaper, which never forks nor reaps. With no child under it, no process can
 * appear in the container again (only a new exec could start one). Read from the host's /proc;
 * false when the engine is elsewhere (no such pid here) or the container is not running.
 */
async function holdLoopAlone(state: { Running?: boolean; Pid?: number }): Promise<boolean> {
  if (!state.Running || !state.Pid) return false;
  try {
    const [children, stat] = await Promise.all([
      readFile(`/proc/${state.Pid}/task/${state.Pid}/children`, "utf8"),
      readFile(`/proc/${state.Pid}/stat`, "utf8"),
    ]);
    // A pid of this host that is the container's PID 1 runs the hold binary (comm ".svc-hold").
    return children.trim() === "" && stat.includes("(.svc-hold)");
  } catch {
    return false;
  }
}

/**
 * The host pid of an exec's main process: the engine reports 0 until the process has started, so
 * it is asked again every 10 ms, for at most 5 s and not past the end of the exec's stream.
 */
async function mainProcessOf(exec: Docker.Exec, ended: () => boolean): Promise<number | null> {
  const deadline = performance.now() + 5000;
  while (!ended() && performance.now() < deadline) {
    const { Pid: pid } = await exec.inspect();
    if (pid) return pid;
    await sleep(10);
  }
  return null;
}

function sinkWriter(sink: BoundedSink): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      sink.push(chunk);
      callback();
    },
  });
}

const SIGNALS: Readonly<Record<number, string>> = {
  6: "SIGABRT",
  9: "SIGKILL",
  11: "SIGSEGV",
  15: "SIGTERM",
  24: "SIGXCPU",
  25: "SIGXFSZ",
};

function signalName(n: number): string {
  return SIGNALS[n] ?? `SIG${n}`;
}

/** True when a Docker engine answers on DOCKER_HOST or the default socket. */
export async function pingDocker(docker: Docker = new Docker()): Promise<boolean> {
  try {
    await Promise.race([
      docker.ping(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), 2000)),
    ]);
    return true;
  } catch {
    return false;
  }
}

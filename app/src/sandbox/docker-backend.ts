import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import Docker from "dockerode";
import { BoundedSink, joinLog, LOG_CEILING } from "./bounded-sink.ts";
import type {
  CheckerJob,
  CheckerOutcome,
  KeepEvidence,
  RuntimeBinding,
  SandboxBackend,
} from "./checker-job.ts";
import { holdBinary } from "./hold-binary.ts";
import { layOutInput } from "./lay-out-input.ts";
import { readOutputDir } from "./read-output-dir.ts";
import { makeRunDirectory } from "./run-directory.ts";
import { prepareRunDisk, type RunDisk } from "./run-disk.ts";
import { settleOutcome } from "./settle-outcome.ts";

/** Processes (threads included) a checker container may hold at once. */
export const DOCKER_PIDS_LIMIT = 64;
/** Unprivileged user of every checker container (nobody:nogroup). */
export const DOCKER_USER = "65534:65534";
/** Entrypoint marker for images whose own ENTRYPOINT/CMD runs (check-contract.ts writes it). */
export const IMAGE_ENTRYPOINT = "@image-entrypoint";

export interface DockerBackendOptions {
  /** The engine; default `new Docker()` (DOCKER_HOST, else the default socket). */
  docker?: Docker;
  /** Where per-run input directories go; the engine must see the same path (a local engine). */
  tempDir?: string;
  logCeiling?: number;
}

/**
 * The `docker` backend (dockerode). Per run: a container from the bound image (`local_image`: an
 * image id or a digest-pinned reference) whose PID 1 is a 129-byte pause loop (hold-binary.ts),
 * with no network, memory = memory_mb (swap none), NanoCpus = vcpu, PidsLimit 64, read-only root,
 * /output and /tmp bound from the run's disk (run-disk.ts: disk_mb on disk), all capabilities
 * dropped, no-new-privileges, user 65534, json-file logs capped at 1 MiB; /input is a read-only
 * bind of a prepared host directory. The checker runs as an exec in it with stdout and stderr
 * read through bounded sinks; on the wall clock the container is killed. When the exec ends the
 * container is killed and the host reads /output from the disk, then removes the container.
 */
export function createDockerBackend(options: DockerBackendOptions = {}): SandboxBackend {
  const docker = options.docker ?? new Docker();
  const logCeiling = options.logCeiling ?? LOG_CEILING;
  return {
    name: "docker",
    run: async (job, binding, runOptions = {}) => {
      if (binding === null) throw new Error("the docker backend needs a runtime binding (the local image)");
      // Private to root: the engine binds the run's folders, whose own modes let the container in.
      const root = await makeRunDirectory(options.tempDir ?? tmpdir(), "svc-docker-");
      try {
        return await runInDocker(docker, job, binding, root, logCeiling, runOptions.keepEvidence);
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    },
  };
}

async function runInDocker(
  docker: Docker,
  job: CheckerJob,
  binding: RuntimeBinding,
  root: string,
  logCeiling: number,
  keepEvidence: KeepEvidence | undefined,
): Promise<CheckerOutcome> {
  const { limits } = job.implementation;
  const image = binding.local_image;
  const imageInfo = await docker.getImage(image).inspect();
  const argv =
    job.implementation.entrypoint[0] === IMAGE_ENTRYPOINT
      ? [...(imageInfo.Config.Entrypoint ?? []), ...(imageInfo.Config.Cmd ?? [])]
      : job.implementation.entrypoint;
  if (argv.length === 0) throw new Error(`image ${image} has no ENTRYPOINT or CMD to run`);
  const inputDir = join(root, "input");
  await layOutInput(job, inputDir);
  const hold = join(root, "hold");
  await writeFile(hold, holdBinary(), { mode: 0o555 });
  const diskBytes = limits.disk_mb * 1_048_576;
  // /output and /tmp are host folders on the run's disk (run-disk.ts), owned by the container's
  // user when we can give them away, else open to anyone inside the private run directory.
  const asRoot = process.getuid?.() === 0;
  const disk = await prepareRunDisk(root, diskBytes, asRoot ? { uid: 65534, gid: 65534 } : undefined);
  try {
    const container = await createChecker(docker, { image, inputDir, hold, disk, job, diskBytes });
    try {
      return await execChecker(docker, container, job, argv, disk, logCeiling, keepEvidence);
    } finally {
      await container.remove({ force: true }).catch(() => undefined);
    }
  } finally {
    await disk.release();
  }
}

async function createChecker(
  docker: Docker,
  run: {
    image: string;
    inputDir: string;
    hold: string;
    disk: RunDisk;
    job: CheckerJob;
    diskBytes: number;
  },
): Promise<Docker.Container> {
  const { limits } = run.job.implementation;
  return docker.createContainer({
    Image: run.image,
    Entrypoint: ["/.svc-hold"],
    Cmd: [],
    User: DOCKER_USER,
    WorkingDir: "/output",
    Env: ["HOME=/tmp", "TMPDIR=/tmp", "LANG=C.UTF-8"],
    NetworkDisabled: true,
    Labels: { "svc.sandbox": "checker", "svc.stage_key": run.job.stage_key },
    HostConfig: {
      NetworkMode: "none",
      Memory: limits.memory_mb * 1_048_576,
      MemorySwap: limits.memory_mb * 1_048_576,
      NanoCpus: Math.round(limits.vcpu * 1e9),
      PidsLimit: DOCKER_PIDS_LIMIT,
      ReadonlyRootfs: true,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
      Ulimits: [
        { Name: "core", Soft: 0, Hard: 0 },
        { Name: "fsize", Soft: run.diskBytes, Hard: run.diskBytes },
      ],
      Binds: [
        `${run.inputDir}:/input:ro`,
        `${run.hold}:/.svc-hold:ro`,
        `${run.disk.output}:/output:rw`,
        `${run.disk.scratch}:/tmp:rw`,
      ],
      LogConfig: { Type: "json-file", Config: { "max-size": "1m", "max-file": "1" } },
      AutoRemove: false,
    },
  });
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
  {
    await container.start();
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
    await new Promise<void>((resolve) => {
      stream.once("end", resolve);
      stream.once("close", resolve);
      stream.once("error", () => resolve());
    });
    clearTimeout(timer);
    unwatch();
    const duration = Math.round(performance.now() - started);
    const log = joinLog(stdout, stderr, logCeiling);
    if (timedOut || diskFilled) {
      return settleOutcome(job, {
        backend: "docker",
        exit_code: null,
        signal: "SIGKILL",
        duration_ms: duration,
        limit: timedOut ? "timeout" : "disk",
        output: [],
        log,
      });
    }
    const [execInfo, state] = await Promise.all([exec.inspect(), container.inspect()]);
    const exitCode = execInfo.ExitCode ?? null;
    // Nothing the checker left running may write while the host reads /output.
    await container.kill().catch(() => undefined);
    const tree = await readOutputDir(disk.output, { keepEvidence });
    const filled = await disk.full();
    // A shell convention: 128 + n is death by signal n.
    const signal = exitCode !== null && exitCode > 128 ? signalName(exitCode - 128) : null;
    // Nothing but the kernel's OOM killer sends SIGKILL inside the container before the wall
    // clock (the engine only marks OOMKilled when PID 1 dies, and PID 1 here is the hold loop).
    const limit =
      state.State.OOMKilled || signal === "SIGKILL"
        ? "memory"
        : filled || signal === "SIGXFSZ"
          ? "disk"
          : tree.overCeiling
            ? "output"
            : null;
    return settleOutcome(job, {
      backend: "docker",
      exit_code: signal === null ? exitCode : null,
      signal,
      duration_ms: duration,
      limit,
      output: tree.entries,
      log,
    });
  }
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

import { randomUUID } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import Docker from "dockerode";
import { BoundedSink, joinLog, LOG_CEILING } from "./bounded-sink.ts";
import type { CheckerJob, CheckerOutcome, RuntimeBinding, SandboxBackend } from "./checker-job.ts";
import { holdBinary } from "./hold-binary.ts";
import { layOutInput } from "./lay-out-input.ts";
import { readTar } from "./read-tar.ts";
import { makeRunDirectory } from "./run-directory.ts";
import { settleOutcome } from "./settle-outcome.ts";
import { tarDirectory } from "./write-tar.ts";

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
 * tmpfs /output and /tmp of disk_mb, all capabilities dropped, no-new-privileges, user 65534,
 * json-file logs capped at 1 MiB; /input is a read-only bind of a prepared host directory. The
 * checker runs as an exec in it with stdout and stderr read through bounded sinks; on the wall
 * clock the container is killed. /output comes back through getArchive while the container still
 * lives (a tmpfs dies with its container), then the container is removed.
 */
export function createDockerBackend(options: DockerBackendOptions = {}): SandboxBackend {
  const docker = options.docker ?? new Docker();
  const logCeiling = options.logCeiling ?? LOG_CEILING;
  return {
    name: "docker",
    run: async (job, binding) => {
      if (binding === null) throw new Error("the docker backend needs a runtime binding (the local image)");
      // Private to root: the engine binds the run's folders, whose own modes let the container in.
      const root = await makeRunDirectory(options.tempDir ?? tmpdir(), "svc-docker-");
      try {
        return await runInDocker(docker, job, binding, root, logCeiling);
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
  // /output is a per-run tmpfs *volume*: the engine's archive calls see volumes but not
  // HostConfig.Tmpfs mounts, and a volume mount lives exactly as long as the container.
  const volumeName = `svc-output-${randomUUID()}`;
  await docker.createVolume({
    Name: volumeName,
    Driver: "local",
    DriverOpts: {
      type: "tmpfs",
      device: "tmpfs",
      o: `size=${diskBytes},uid=65534,gid=65534,mode=0755,nosuid,nodev`,
    },
    Labels: { "svc.sandbox": "output" },
  });
  let container: Docker.Container;
  try {
    container = await createChecker(docker, { image, inputDir, hold, volumeName, job, diskBytes });
  } catch (error) {
    await docker
      .getVolume(volumeName)
      .remove()
      .catch(() => undefined);
    throw error;
  }
  try {
    return await execChecker(docker, container, job, argv, diskBytes, logCeiling);
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
    await docker
      .getVolume(volumeName)
      .remove()
      .catch(() => undefined);
  }
}

async function createChecker(
  docker: Docker,
  run: {
    image: string;
    inputDir: string;
    hold: string;
    volumeName: string;
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
      Tmpfs: { "/tmp": `rw,nosuid,nodev,noexec,size=${run.diskBytes},mode=1777` },
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
      Ulimits: [{ Name: "core", Soft: 0, Hard: 0 }],
      Binds: [`${run.inputDir}:/input:ro`, `${run.hold}:/.svc-hold:ro`, `${run.volumeName}:/output:rw`],
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
  diskBytes: number,
  logCeiling: number,
): Promise<CheckerOutcome> {
  const { limits } = job.implementation;
  let timedOut = false;
  {
    await container.start();
    // The checker finds /output/evidence/ ready, as under bwrap.
    await container.putArchive(await tarDirectory("evidence", 0o777, 65534), { path: "/output" });
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
    docker.modem.demuxStream(stream, sinkWriter(stdout), sinkWriter(stderr));
    await new Promise<void>((resolve) => {
      stream.once("end", resolve);
      stream.once("close", resolve);
      stream.once("error", () => resolve());
    });
    clearTimeout(timer);
    const duration = Math.round(performance.now() - started);
    const log = joinLog(stdout, stderr, logCeiling);
    if (timedOut) {
      return settleOutcome(job, {
        backend: "docker",
        exit_code: null,
        signal: "SIGKILL",
        duration_ms: duration,
        limit: "timeout",
        output: [],
        log,
      });
    }
    const [execInfo, state] = await Promise.all([exec.inspect(), container.inspect()]);
    const exitCode = execInfo.ExitCode ?? null;
    const output = await readTar(
      await readBounded(await container.getArchive({ path: "/output" }), diskBytes * 2 + 1_048_576),
      1,
    );
    const used = output.reduce((sum, entry) => sum + entry.bytes.length, 0);
    // A shell convention: 128 + n is death by signal n.
    const signal = exitCode !== null && exitCode > 128 ? signalName(exitCode - 128) : null;
    // Nothing but the kernel's OOM killer sends SIGKILL inside the container before the wall
    // clock (the engine only marks OOMKilled when PID 1 dies, and PID 1 here is the hold loop).
    const limit =
      state.State.OOMKilled || signal === "SIGKILL" ? "memory" : used >= diskBytes - 65_536 ? "disk" : null;
    return settleOutcome(job, {
      backend: "docker",
      exit_code: signal === null ? exitCode : null,
      signal,
      duration_ms: duration,
      limit,
      output,
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

async function readBounded(stream: NodeJS.ReadableStream, ceiling: number): Promise<Buffer> {
  const sink = new BoundedSink(ceiling);
  for await (const chunk of stream) sink.push(Buffer.from(chunk as Buffer));
  if (sink.truncated) throw new Error(`/output's archive is larger than ${ceiling} bytes`);
  return sink.bytes();
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

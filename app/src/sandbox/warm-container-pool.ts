import { spawnSync } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Writable } from "node:stream";
import type Docker from "dockerode";
import { BoundedSink, LOG_CEILING } from "./bounded-sink.ts";
import type { CheckerLimits } from "./checker-job.ts";
import { onProcessExit } from "./exit-cleanups.ts";
import { holdBinary } from "./hold-binary.ts";
import { processAlive } from "./process-alive.ts";
import { makeRunDirectory } from "./run-directory.ts";
import { prepareRunDisk, type RunDisk, removeRunDirectorySync } from "./run-disk.ts";
import { SUPERVISOR_SOURCE } from "./supervisor-script.ts";

/** Processes (threads included) a checker container may hold at once. */
export const DOCKER_PIDS_LIMIT = 64;
/** Unprivileged user of every checker container (nobody:nogroup). */
export const DOCKER_USER = "65534:65534";
/** Started containers kept ready per (image, limits) by default. */
export const CONTAINER_POOL_SIZE = 2;

/** What a container is made for: its image and the limits fixed when it is created. */
export interface SlotSpec {
  /** An image id or a digest-pinned reference. */
  image: string;
  limits: Pick<CheckerLimits, "vcpu" | "memory_mb" | "disk_mb">;
  /**
   * PID 1 is the service's supervisor (supervisor-script.ts, run by the image's python3) waiting
   * on the container's stdin, instead of the hold loop: for script checkers on the python runtime.
   */
  supervised?: boolean;
}

/**
 * A supervised container's stdio: attached before it started, stdin open until the run is sent,
 * stdout and stderr read into bounded sinks from the start.
 */
export interface SupervisedIo {
  stream: NodeJS.ReadWriteStream;
  stdout: BoundedSink;
  stderr: BoundedSink;
  /** Settles when the container's output ends: its PID 1, the supervisor, is gone. */
  ended: Promise<void>;
}

/**
 * One started checker container with its private run directory: `inputDir` (bound read-only at
 * /input, empty until the run lays its inputs out in it), the run's disk (bound at /output and
 * /tmp) and the image's own ENTRYPOINT and CMD.
 */
export interface WarmSlot {
  root: string;
  inputDir: string;
  disk: RunDisk;
  container: Docker.Container;
  imageArgv: string[];
  /** Present when PID 1 is the supervisor (SlotSpec.supervised). */
  supervised?: SupervisedIo;
}

export interface WarmContainerPool {
  /** The label every container of this pool carries: `svc.pool=<id>`. */
  readonly label: string;
  /** A started container for one run: a ready one when the pool has it, else one made now. */
  take(spec: SlotSpec): Promise<WarmSlot>;
  /** Ends a slot after its run: the container is removed and the disk released, in the background. */
  discard(slot: WarmSlot): void;
  /** Resolves once no slot is being made or removed (benches wait on it between runs). */
  settled(): Promise<void>;
  /** Stops refilling, removes every container it holds, and waits for every removal. */
  close(): Promise<void>;
}

/**
 * Pre-started, network-less checker containers (docker-backend.ts has the isolation), kept per
 * image and limits so a run skips the engine's create and start: each container serves exactly
 * one run and is then destroyed with its disk and run directory, never reused, and a taken slot
 * is replaced in the background once its run is over (so the engine's work does not slow it). A warm container has run nothing but its 129-byte hold loop; the
 * run's inputs are written into its /input folder on the host when it is taken. `size` 0 makes
 * each run's container on demand. Containers carry the label `svc.pool=<pool id>`; an ordinary
 * exit removes them synchronously, and `close` drains the pool on shutdown.
 */
export function createWarmContainerPool(options: {
  docker: Docker;
  tempDir: string;
  size?: number;
  /** Capture ceiling of a supervised container's stdout and stderr. */
  logCeiling?: number;
  /** Told at each take whether a ready container served it (warm) or one was made for it. */
  onTake?: ((warm: boolean) => void) | undefined;
}): WarmContainerPool {
  const { docker } = options;
  const size = options.size ?? CONTAINER_POOL_SIZE;
  const poolId = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const ready = new Map<string, Promise<WarmSlot>[]>();
  /** Every slot made and not yet removed, for close and the exit hook. */
  const live = new Set<WarmSlot>();
  const pending = new Set<Promise<unknown>>();
  let closed = false;

  const track = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise);
    void promise.finally(() => pending.delete(promise)).catch(() => {});
    return promise;
  };

  /** Run directories of slots still being made (not in `live` yet), for the exit hook. */
  const making = new Set<string>();

  const onExit = () => {
    const ids = [...live].map((slot) => slot.container.id);
    if (ids.length > 0) spawnSync("docker", ["rm", "-f", ...ids], { stdio: "ignore" });
    for (const slot of live) removeRunDirectorySync(slot.root, slot.disk.mounted);
    for (const root of making) removeRunDirectorySync(root, true);
  };
  const forgetExitHook = onProcessExit(onExit);

  const remove = async (slot: WarmSlot): Promise<void> => {
    await slot.container.remove({ force: true }).catch(() => undefined);
    await slot.disk.release();
    await rm(slot.root, { recursive: true, force: true });
    live.delete(slot);
  };

  const make = async (spec: SlotSpec): Promise<WarmSlot> => {
    // Private to root: the engine binds the run's folders, whose own modes let the container in.
    const root = await makeRunDirectory(options.tempDir, "svc-docker-");
    making.add(root);
    let disk: RunDisk | undefined;
    try {
      const imageInfo = await docker.getImage(spec.image).inspect();
      const inputDir = join(root, "input");
      await mkdir(inputDir, { mode: 0o755 });
      const hold = join(root, "hold");
      await writeFile(hold, holdBinary(), { mode: 0o555 });
      const supervisor = join(root, "supervise.py");
      if (spec.supervised) await writeFile(supervisor, SUPERVISOR_SOURCE, { mode: 0o444 });
      const diskBytes = spec.limits.disk_mb * 1_048_576;
      // /output and /tmp are host folders on the run's disk (run-disk.ts), owned by the
      // container's user when we can give them away, else open to anyone inside the private root.
      const asRoot = process.getuid?.() === 0;
      disk = await prepareRunDisk(root, diskBytes, asRoot ? { uid: 65534, gid: 65534 } : undefined);
      const container = await docker.createContainer(
        containerSpec(spec, { inputDir, hold, supervisor, disk, poolId }),
      );
      const slot: WarmSlot = {
        root,
        inputDir,
        disk,
        container,
        imageArgv: [...(imageInfo.Config.Entrypoint ?? []), ...(imageInfo.Config.Cmd ?? [])],
      };
      live.add(slot);
      if (spec.supervised)
        slot.supervised = await attach(docker, container, options.logCeiling ?? LOG_CEILING);
      await container.start();
      return slot;
    } catch (error) {
      await disk?.release();
      await rm(root, { recursive: true, force: true });
      throw error;
    } finally {
      making.delete(root);
    }
  };

  /** The spec each taken slot was made for, to refill its queue when the slot is discarded. */
  const refills = new Map<WarmSlot, SlotSpec>();
  const queueOf = (spec: SlotSpec): Promise<WarmSlot>[] => {
    const key = JSON.stringify([
      spec.image,
      spec.limits.vcpu,
      spec.limits.memory_mb,
      spec.limits.disk_mb,
      spec.supervised === true,
    ]);
    const queue = ready.get(key) ?? [];
    ready.set(key, queue);
    return queue;
  };
  const refill = (spec: SlotSpec): void => {
    if (closed) return;
    const queue = queueOf(spec);
    while (queue.length < size) {
      const made = track(make(spec));
      made.then((slot) => keepProcessAlive(slot, false)).catch(() => {});
      queue.push(made);
    }
  };

  let swept: Promise<void> | undefined;
  return {
    label: `svc.pool=${poolId}`,
    async take(spec) {
      if (closed) throw new Error("the docker backend is closed");
      swept ??= sweepDeadPools(docker).catch(() => {});
      await swept;
      const queue = queueOf(spec);
      const next = queue.shift();
      let slot: WarmSlot | undefined;
      if (next) {
        try {
          slot = await next;
        } catch {
          // A failed warm container (the engine hiccuped): make this run's own, reporting its error.
        }
      }
      // SVC_SANDBOX_LOOP_DISK=0 (read at each run) turns loop disks off, for warm slots too.
      if (slot?.disk.mounted && process.env.SVC_SANDBOX_LOOP_DISK === "0") {
        track(remove(slot));
        slot = undefined;
      }
      options.onTake?.(slot !== undefined);
      slot ??= await make(spec);
      keepProcessAlive(slot, true);
      refills.set(slot, spec);
      return slot;
    },
    discard(slot) {
      // The refill starts after the run, not when it is taken: creating and starting a container
      // costs the engine more CPU than a trivial run, and would compete with it for the cores.
      const spec = refills.get(slot);
      refills.delete(slot);
      // After the caller has its verdict (it continues first).
      track(
        new Promise<void>((resolve) =>
          setImmediate(() => {
            track(remove(slot));
            if (spec !== undefined) refill(spec);
            resolve();
          }),
        ),
      );
    },
    async settled() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    async close() {
      closed = true;
      const waiting = [...ready.values()].flat();
      ready.clear();
      await Promise.allSettled(waiting);
      await Promise.allSettled([...pending]);
      await Promise.all([...live].map(remove));
      forgetExitHook();
    },
  };
}

/**
 * The container: PID 1 the hold loop, no network, memory = memory_mb (swap none), NanoCpus =
 * vcpu, PidsLimit 64, read-only root, /output and /tmp bound from the run's disk, /input a
 * read-only bind of the slot's input folder, all capabilities dropped, no-new-privileges, user
 * 65534, json-file logs capped at 1 MiB.
 */
function containerSpec(
  spec: SlotSpec,
  slot: { inputDir: string; hold: string; supervisor: string; disk: RunDisk; poolId: string },
): Docker.ContainerCreateOptions {
  const { limits } = spec;
  const diskBytes = limits.disk_mb * 1_048_576;
  return {
    Image: spec.image,
    Entrypoint: spec.supervised ? ["python3", "-I", "-S", "/.svc/supervise.py"] : ["/.svc-hold"],
    Cmd: [],
    ...(spec.supervised && { OpenStdin: true, StdinOnce: true, AttachStdin: true }),
    AttachStdout: spec.supervised === true,
    AttachStderr: spec.supervised === true,
    User: DOCKER_USER,
    WorkingDir: "/output",
    Env: ["HOME=/tmp", "TMPDIR=/tmp", "LANG=C.UTF-8"],
    NetworkDisabled: true,
    Labels: { "svc.sandbox": "checker", "svc.pool": slot.poolId },
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
        { Name: "fsize", Soft: diskBytes, Hard: diskBytes },
      ],
      Binds: [
        `${slot.inputDir}:/input:ro`,
        spec.supervised ? `${slot.supervisor}:/.svc/supervise.py:ro` : `${slot.hold}:/.svc-hold:ro`,
        `${slot.disk.output}:/output:rw`,
        `${slot.disk.scratch}:/tmp:rw`,
      ],
      LogConfig: { Type: "json-file", Config: { "max-size": "1m", "max-file": "1" } },
      AutoRemove: false,
    },
  };
}

/**
 * Whether a supervised slot's attached stream (a socket to the engine) keeps this process alive:
 * not while it waits in the pool, so a process that ends without close() exits (the exit hook
 * removes what waits); again once a run has it. A hold-loop slot holds nothing open.
 */
function keepProcessAlive(slot: WarmSlot, keep: boolean): void {
  const socket = slot.supervised?.stream as Partial<{ ref(): void; unref(): void }> | undefined;
  if (keep) socket?.ref?.();
  else socket?.unref?.();
}

/** Attaches to a created container's stdio (before it starts, so no output is missed). */
async function attach(
  docker: Docker,
  container: Docker.Container,
  logCeiling: number,
): Promise<SupervisedIo> {
  const stream = (await container.attach({
    stream: true,
    stdin: true,
    stdout: true,
    stderr: true,
    hijack: true,
  })) as NodeJS.ReadWriteStream;
  const stdout = new BoundedSink(logCeiling);
  const stderr = new BoundedSink(logCeiling);
  docker.modem.demuxStream(stream, sinkWriter(stdout), sinkWriter(stderr));
  const ended = new Promise<void>((resolve) => {
    stream.once("end", resolve);
    stream.once("close", resolve);
    // A container gone before its run (its stdin closed) must not crash the host.
    stream.on("error", () => resolve());
  });
  return { stream, stdout, stderr, ended };
}

function sinkWriter(sink: BoundedSink): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      sink.push(chunk);
      callback();
    },
  });
}

/**
 * Removes the containers of pools whose process is gone (a kill -9 leaves its warm containers
 * running their hold loop): the label's value starts with the pool's pid, on this host's engine.
 */
async function sweepDeadPools(docker: Docker): Promise<void> {
  const containers = await docker.listContainers({ all: true, filters: { label: ["svc.pool"] } });
  for (const info of containers) {
    const pid = Number((info.Labels["svc.pool"] ?? "").split("-")[0]);
    if (!Number.isInteger(pid) || pid <= 0 || processAlive(pid)) continue;
    await docker
      .getContainer(info.Id)
      .remove({ force: true })
      .catch(() => undefined);
  }
}

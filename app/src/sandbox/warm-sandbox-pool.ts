import type { ChildProcess } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BoundedSink } from "./bounded-sink.ts";
import { onProcessExit } from "./exit-cleanups.ts";
import { makeRunDirectory } from "./run-directory.ts";
import { prepareRunDisk, type RunDisk, removeRunDirectorySync } from "./run-disk.ts";
import { SUPERVISOR_SOURCE } from "./supervisor-script.ts";

/** Started bwrap sandboxes kept ready per interpreter and disk size by default. */
export const SANDBOX_POOL_SIZE = 2;

/** The supervisor's report is three numbers; anything longer is not one. */
const REPORT_CEILING = 64 * 1024;

/** What a sandbox is started for: the interpreter it runs and the size of its disk. */
export interface SandboxSpec {
  python: string;
  /** The image root the sandbox runs in; absent: the host's /usr. */
  rootfs?: string | undefined;
  diskBytes: number;
}

/** The host paths a sandbox binds: its run directory, `/input`, the supervisor and the disk. */
export interface SandboxPaths {
  root: string;
  inputDir: string;
  supervisor: string;
  disk: RunDisk;
}

export interface SandboxExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

/**
 * One started sandbox, waiting for its run: bwrap with every namespace and bind in place and the
 * supervisor started inside, blocked on its stdin (supervisor-script.ts), with `/input` bound
 * read-only from `inputDir` (empty until the run lays its inputs out there), `/output` and `/tmp`
 * from its disk, and its stdout, stderr and report (fd 3) read into bounded sinks from the start.
 */
export interface WarmSandbox {
  root: string;
  inputDir: string;
  disk: RunDisk;
  child: ChildProcess;
  stdout: BoundedSink;
  stderr: BoundedSink;
  report: BoundedSink;
  /** Settles once bwrap has exited and its pipes are closed (or it could not be spawned). */
  exited: Promise<SandboxExit>;
}

export interface WarmSandboxPool {
  /** A started sandbox for one run: a ready one when the pool has it, else one started now. */
  take(spec: SandboxSpec): Promise<WarmSandbox>;
  /**
   * Ends a sandbox after its run: bwrap is killed if it still runs, the disk unmounted and the run
   * directory removed, in the background; then the pool is refilled.
   */
  discard(sandbox: WarmSandbox): void;
  /** Resolves once no sandbox is being started or removed (benches wait on it between runs). */
  settled(): Promise<void>;
  /** Stops refilling, kills and removes every sandbox it holds, and waits for every removal. */
  close(): Promise<void>;
}

/**
 * Pre-started bwrap sandboxes (bwrap-backend.ts has the isolation), the bwrap counterpart of the
 * Docker backend's warm containers: making the run's disk (an ext4 image, formatted and mounted),
 * entering the namespaces and starting the interpreter cost more than a trivial checker's whole
 * run, so they happen between runs. Each sandbox has its own private run directory
 * (`svc-bwrap-*`, 0700, owned by `owner` when given), serves exactly one run and is then destroyed
 * with its disk, never reused; a taken sandbox is replaced in the background once its run is over
 * (so starting the next one does not compete with the run for the cores). A warm sandbox has run
 * nothing but the service's supervisor up to its wait. `size` 0 starts each run's sandbox on
 * demand. An ordinary exit kills, unmounts and removes them synchronously (bwrap also dies with
 * its parent); a kill -9 leaves the run directories to the service's start-up sweep.
 */
export function createWarmSandboxPool(options: {
  tempDir: string;
  size?: number;
  logCeiling: number;
  owner?: { uid: number; gid: number } | undefined;
  /** Spawns bwrap on a sandbox's paths: stdio [pipe, pipe, pipe, pipe], its own process group. */
  start(spec: SandboxSpec, paths: SandboxPaths): ChildProcess;
  /** Told at each take whether a ready sandbox served it (warm) or one was made for it. */
  onTake?: ((warm: boolean) => void) | undefined;
}): WarmSandboxPool {
  const size = options.size ?? SANDBOX_POOL_SIZE;
  const ready = new Map<string, WarmSandbox[]>();
  const starting = new Map<string, number>();
  /** Every sandbox started and not removed yet, for close and the exit hook. */
  const live = new Set<WarmSandbox>();
  const specs = new Map<WarmSandbox, SandboxSpec>();
  const pending = new Set<Promise<unknown>>();
  let closed = false;

  const track = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise);
    void promise.finally(() => pending.delete(promise)).catch(() => {});
    return promise;
  };
  const keyOf = (spec: SandboxSpec) => `${spec.diskBytes}:${spec.rootfs ?? ""}:${spec.python}`;

  /** Run directories of sandboxes still being made (not in `live` yet), for the exit hook. */
  const making = new Set<string>();

  const onExit = () => {
    for (const sandbox of live) {
      killSandbox(sandbox);
      removeRunDirectorySync(sandbox.root, sandbox.disk.mounted);
    }
    for (const root of making) removeRunDirectorySync(root, true);
  };
  const forgetExitHook = onProcessExit(onExit);

  const remove = async (sandbox: WarmSandbox): Promise<void> => {
    killSandbox(sandbox);
    await sandbox.exited;
    await sandbox.disk.release();
    await rm(sandbox.root, { recursive: true, force: true });
    live.delete(sandbox);
  };

  const make = async (spec: SandboxSpec): Promise<WarmSandbox> => {
    const root = await makeRunDirectory(options.tempDir, "svc-bwrap-", options.owner);
    making.add(root);
    let disk: RunDisk | undefined;
    try {
      const inputDir = join(root, "input");
      await mkdir(inputDir, { mode: 0o755 });
      const supervisor = join(root, "supervise.py");
      await writeFile(supervisor, SUPERVISOR_SOURCE, { mode: 0o444 });
      disk = await prepareRunDisk(root, spec.diskBytes, options.owner);
      const child = options.start(spec, { root, inputDir, supervisor, disk });
      const sandbox: WarmSandbox = {
        root,
        inputDir,
        disk,
        child,
        stdout: new BoundedSink(options.logCeiling),
        stderr: new BoundedSink(options.logCeiling),
        report: new BoundedSink(REPORT_CEILING),
        exited: new Promise((resolve) => {
          child.once("error", (error) => resolve({ code: null, signal: null, error }));
          child.once("close", (code, signal) => resolve({ code, signal }));
        }),
      };
      // A supervisor gone before its run (or bwrap that never started) must not crash the host.
      child.stdin?.on("error", () => undefined);
      child.stdout?.on("data", (chunk: Buffer) => sandbox.stdout.push(chunk));
      child.stderr?.on("data", (chunk: Buffer) => sandbox.stderr.push(chunk));
      (child.stdio[3] as NodeJS.ReadableStream | null)?.on("data", (chunk: Buffer) =>
        sandbox.report.push(chunk),
      );
      live.add(sandbox);
      return sandbox;
    } catch (error) {
      await disk?.release();
      await rm(root, { recursive: true, force: true });
      throw error;
    } finally {
      making.delete(root);
    }
  };

  const refill = (spec: SandboxSpec): void => {
    const key = keyOf(spec);
    const queue = ready.get(key) ?? [];
    ready.set(key, queue);
    while (!closed && queue.length + (starting.get(key) ?? 0) < size) {
      starting.set(key, (starting.get(key) ?? 0) + 1);
      track(
        make(spec)
          .then((sandbox) => {
            if (closed) track(remove(sandbox));
            else {
              keepProcessAlive(sandbox, false);
              queue.push(sandbox);
            }
          })
          .catch(() => undefined)
          .finally(() => starting.set(key, (starting.get(key) ?? 1) - 1)),
      );
    }
  };

  return {
    async take(spec) {
      if (closed) throw new Error("the bwrap backend is closed");
      const queue = ready.get(keyOf(spec)) ?? [];
      let sandbox = queue.shift();
      // One that died while it waited (killed from outside) is removed, never handed out; so is
      // one with a loop disk once SVC_SANDBOX_LOOP_DISK=0 (read at each run) turns them off.
      const foldersOnly = process.env.SVC_SANDBOX_LOOP_DISK === "0";
      while (sandbox !== undefined && (!waiting(sandbox) || (foldersOnly && sandbox.disk.mounted))) {
        track(remove(sandbox));
        sandbox = queue.shift();
      }
      options.onTake?.(sandbox !== undefined);
      sandbox ??= await make(spec);
      keepProcessAlive(sandbox, true);
      specs.set(sandbox, spec);
      return sandbox;
    },
    discard(sandbox) {
      const spec = specs.get(sandbox);
      specs.delete(sandbox);
      // After the caller has its verdict: unmounting spawns umount, and a spawn blocks the
      // event loop for milliseconds that would otherwise come before the caller's continuation.
      track(
        new Promise<void>((resolve) =>
          setImmediate(() => {
            track(remove(sandbox));
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
      const waitingOnes = [...ready.values()].flat();
      ready.clear();
      await Promise.all(waitingOnes.map((sandbox) => track(remove(sandbox))));
      while (pending.size > 0) await Promise.allSettled([...pending]);
      forgetExitHook();
    },
  };
}

/**
 * Whether a sandbox's bwrap and pipes keep this process alive: not while it waits in the pool, so
 * a process that ends without close() (a `svc test` run, a bench) exits, and the exit hook removes
 * what waits; again once a run has it, so the run is never cut short.
 */
function keepProcessAlive(sandbox: WarmSandbox, keep: boolean): void {
  for (const handle of [sandbox.child, ...sandbox.child.stdio] as ({ ref(): void; unref(): void } | null)[]) {
    if (keep) handle?.ref();
    else handle?.unref();
  }
}

/** True while the sandbox's bwrap runs (it was spawned and has not exited). */
function waiting(sandbox: WarmSandbox): boolean {
  return (
    sandbox.child.pid !== undefined && sandbox.child.exitCode === null && sandbox.child.signalCode === null
  );
}

/**
 * Kills a sandbox: its process group is bwrap alone (the sandbox has its own session), and the
 * pid namespace dies with its init when bwrap goes.
 */
export function killSandbox(sandbox: WarmSandbox): void {
  if (!waiting(sandbox)) return;
  try {
    process.kill(-sandbox.child.pid!, "SIGKILL");
  } catch {
    // Already gone.
  }
}

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { stopChild } from "./bounded-teardown.ts";

/**
 * Real `svc-server` processes for fleet tests and benches: web replicas (`serve` with no
 * workers), worker processes (`worker`) and the one `migrate` of a deploy, each with its own data
 * directory as if on its own host, sharing what `env` gives them (DATABASE_URL, the bucket, the
 * base URL). Their JSON log lines are kept for assertions. A process's data directory is removed
 * once it has exited, so benches (which have no test run's temporary folder) leave nothing.
 */
const bin = new URL("../../bin/svc-server.js", import.meta.url).pathname;

export interface FleetProcess {
  role: "web" | "worker";
  child: ChildProcessWithoutNullStreams;
  /** Its own SVC_DATA_DIR, as on a host of its own. */
  dataDir: string;
  /** Every log line, parsed. */
  lines: Record<string, unknown>[];
  stderr: string;
  /** Resolves once the process is serving (web: listening; worker: running). */
  ready: Promise<void>;
  /** The web replica's own address, once ready. */
  url: string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** Sends `signal` (SIGKILL after a grace, see stopChild) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resolves when a log line with this message appears (also one already logged). */
  logged(msg: string): Promise<void>;
}

export function startFleetProcess(
  role: "web" | "worker",
  env: Record<string, string | undefined>,
): FleetProcess {
  const dataDir = mkdtempSync(join(tmpdir(), `svc-fleet-${role}-`));
  const child = spawn(process.execPath, [bin, role === "web" ? "serve" : "worker"], {
    env: {
      ...process.env,
      SVC_DATA_DIR: dataDir,
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "info",
      ...(role === "web" ? { SVC_WORKERS: "0" } : {}),
      ...env,
    },
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: { msg: string; resolve: () => void }[] = [];
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      void removeDataDir(dataDir).then(() => resolve(code));
    }),
  );
  const fleetProcess: FleetProcess = {
    role,
    child,
    dataDir,
    lines,
    stderr: "",
    url: "",
    exited,
    ready: Promise.resolve(),
    async stop(signal = "SIGTERM") {
      await stopChild(child, { signal });
      return exited;
    },
    logged(msg) {
      if (lines.some((line) => line.msg === msg)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ msg, resolve }));
    },
  };
  child.stderr.on("data", (chunk) => {
    fleetProcess.stderr += chunk;
  });
  createInterface({ input: child.stdout }).on("line", (text) => {
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch {
      line = { msg: text };
    }
    lines.push(line);
    if (line.msg === "svc is listening") fleetProcess.url = String(line.url);
    for (const waiter of waiters.filter((w) => w.msg === line.msg)) waiter.resolve();
  });
  const readyMsg = role === "web" ? "svc is listening" : "svc worker is running";
  fleetProcess.ready = Promise.race([
    fleetProcess.logged(readyMsg),
    exited.then((code) => {
      throw new Error(`svc-server ${role} exited with ${code} before it was ready: ${fleetProcess.stderr}`);
    }),
  ]);
  return fleetProcess;
}

/** `svc-server migrate` once, as a deploy runs it; resolves with the migrations it applied. */
export async function migrateOnce(env: Record<string, string | undefined>): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-fleet-migrate-"));
  const child = spawn(process.execPath, [bin, "migrate"], {
    env: { ...process.env, SVC_DATA_DIR: dataDir, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  await removeDataDir(dataDir);
  if (code !== 0) throw new Error(`svc-server migrate exited with ${code}: ${stderr}`);
  return (JSON.parse(stdout) as { applied: string[] }).applied;
}

/**
 * Removed without blocking the event loop (a hook's timer keeps running). A killed worker can
 * leave a run disk mounted in its data directory: that one stays, and the test run's teardown
 * (run-temp-dir.ts) unmounts and removes it.
 */
async function removeDataDir(dataDir: string): Promise<void> {
  await rm(dataDir, { recursive: true, force: true }).catch(() => {});
}

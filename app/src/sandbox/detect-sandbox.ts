import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import type { RuntimeBackend } from "@svc/schemas";
import Docker from "dockerode";
import { createBwrapBackend } from "./bwrap-backend.ts";
import type { RuntimeBinding } from "./checker-job.ts";
import { createDockerBackend, pingDocker } from "./docker-backend.ts";
import type { Backends } from "./run-checker.ts";

/** What this machine can run: the binding for svc-runtime/python:1, the backends, and why. */
export interface DetectedSandbox {
  binding: RuntimeBinding | null;
  backends: Backends;
  /** One line saying what was chosen and why (printed by `svc test`). */
  description: string;
}

export interface DetectSandboxOptions {
  /** The docker image realising svc-runtime/python:1 (`svc test --image`, else SVC_PYTHON_IMAGE). */
  pythonImage?: string;
  /** Force one backend (SVC_SANDBOX=bwrap|docker); default: docker when usable, else bwrap. */
  prefer?: RuntimeBackend;
  env?: Readonly<Record<string, string | undefined>>;
  docker?: Docker;
  /** Where a host python3 is looked for (tests name a machine without one). */
  hostPythons?: readonly string[];
}

/** Host interpreters tried for the bwrap binding; they must live under /usr, which the sandbox binds. */
const HOST_PYTHONS = ["/usr/bin/python3", "/usr/local/bin/python3"];

/**
 * Chooses the sandbox for script checkers (docs/sandbox.md): Docker when an engine answers
 * (DOCKER_HOST or the default socket) and the python image is given and present; else bubblewrap
 * when `bwrap` runs and a python3 is under /usr; else none (script runtimes are then unbound and
 * their stages inconclusive). Builtins always run, in process.
 */
export async function detectSandbox(options: DetectSandboxOptions = {}): Promise<DetectedSandbox> {
  const env = options.env ?? process.env;
  const prefer =
    options.prefer ??
    (env.SVC_SANDBOX === "bwrap" || env.SVC_SANDBOX === "docker" ? env.SVC_SANDBOX : undefined);
  const pythonImage = options.pythonImage ?? env.SVC_PYTHON_IMAGE;
  const notes: string[] = [];

  if (prefer !== "bwrap") {
    const docker = options.docker ?? new Docker(dockerOptions(env.DOCKER_HOST));
    if (await pingDocker(docker)) {
      if (pythonImage === undefined) {
        notes.push("Docker answers but no python image is named (--image or SVC_PYTHON_IMAGE)");
      } else {
        try {
          const info = await docker.getImage(pythonImage).inspect();
          return {
            binding: { backend: "docker", local_image: info.Id },
            backends: { docker: createDockerBackend({ docker }) },
            description: `docker: svc-runtime/python:1 is ${pythonImage} (${info.Id.slice(0, 19)})`,
          };
        } catch {
          notes.push(
            `Docker answers but image ${pythonImage} is not present (scripts/build-python-image.sh builds it)`,
          );
        }
      }
    } else notes.push("no Docker engine answers");
  }
  if (prefer !== "docker") {
    const python = (options.hostPythons ?? HOST_PYTHONS).find((path) => existsSync(path));
    const bwrap = bwrapRuns();
    if (bwrap && python !== undefined) {
      return {
        binding: { backend: "bwrap", local_image: python },
        backends: { bwrap: createBwrapBackend() },
        description: `bwrap: svc-runtime/python:1 is the host's ${python} under bubblewrap${notes.length ? ` (${notes.join("; ")})` : ""}`,
      };
    }
    if (bwrap) {
      // No host interpreter, but bubblewrap still runs a runtime image's own root (svc verify --replay).
      return {
        binding: null,
        backends: { bwrap: createBwrapBackend() },
        description: `bwrap: runtime images only; no python3 under /usr for svc-runtime/python:1${notes.length ? ` (${notes.join("; ")})` : ""}`,
      };
    }
    notes.push("bwrap does not run here");
  }
  return { binding: null, backends: {}, description: `none: ${notes.join("; ")}` };
}

/** True when bubblewrap can create its namespaces here (it runs `true` in a minimal sandbox). */
export function bwrapRuns(bwrap = "bwrap"): boolean {
  const probe = spawnSync(
    bwrap,
    [
      "--unshare-user",
      "--unshare-pid",
      "--unshare-net",
      "--ro-bind",
      "/usr",
      "/usr",
      "--symlink",
      "usr/bin",
      "/bin",
      "--symlink",
      "usr/lib",
      "/lib",
      "--symlink",
      "usr/lib64",
      "/lib64",
      "--",
      "/usr/bin/true",
    ],
    { stdio: "ignore", timeout: 5000, ...(process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}) },
  );
  return probe.status === 0;
}

/** Engine options from a DOCKER_HOST value (`unix:///path` or `tcp://host:port`); default socket when unset. */
export function dockerOptions(dockerHost: string | undefined): Docker.DockerOptions {
  if (dockerHost === undefined || dockerHost === "") return { socketPath: "/var/run/docker.sock" };
  if (dockerHost.startsWith("unix://")) return { socketPath: dockerHost.slice("unix://".length) };
  const url = new URL(dockerHost.replace(/^tcp:/, "http:"));
  return { host: url.hostname, port: Number(url.port || 2375) };
}

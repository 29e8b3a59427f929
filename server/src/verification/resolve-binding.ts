import type { RuntimeBinding } from "@svc/app";
import type { RuntimeBackend } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import type { SandboxEngines } from "../core/services/sandbox-runner.ts";
import { imageKind } from "../sandbox-images/image-state.ts";

/** Where an implementation's image can run here, or why it cannot (yet). */
export type BindingResolution =
  | { kind: "ready"; binding: RuntimeBinding | null }
  /** The service cannot execute it on this deployment: the stage is inconclusive. */
  | { kind: "unbound"; reason: string }
  /** A custom image still being provisioned: the run waits. */
  | { kind: "wait"; reason: string }
  /** Provisioning failed: the service's machinery, so the stage is `error`. */
  | { kind: "failed"; reason: string };

/** The host interpreter bwrap runs `svc-runtime/python:1` checkers with. */
export const HOST_PYTHON = "/usr/bin/python3";

/**
 * Resolves an image reference to a backend (spec 3): builtins run in process; a script runtime
 * runs on Docker when an engine answers and the operator bound the runtime to a local image,
 * else under bubblewrap on the host's interpreter, else it is unbound; a custom image runs on
 * Docker once provisioned.
 */
export async function resolveBinding(
  sql: Sql,
  engines: SandboxEngines,
  imageRef: string,
): Promise<BindingResolution> {
  const kind = imageKind(imageRef);
  if (kind === "builtin") return { kind: "ready", binding: null };
  if (kind === "runtime") {
    const [bound] = await sql<
      {
        backend: RuntimeBackend;
        local_image: string;
        source: string | null;
        runtime_bytes_digest: string | null;
      }[]
    >`
      select backend, local_image, source, runtime_bytes_digest from sandbox_runtimes where image_ref = ${imageRef}`;
    if (bound?.backend === "docker" && engines.docker) {
      return {
        kind: "ready",
        binding: {
          backend: "docker",
          local_image: bound.local_image,
          bytes_digest: bound.runtime_bytes_digest,
        },
      };
    }
    if (engines.bwrap) {
      // Bound to an image: its root, unpacked on this host (local-sandbox-runner.ts). Else the
      // host's interpreter, whose bytes the record cannot name (docs/sandbox.md).
      if (bound?.backend === "bwrap" && bound.source) {
        return {
          kind: "ready",
          binding: {
            backend: "bwrap",
            local_image: bound.local_image,
            source: bound.source,
            bytes_digest: bound.runtime_bytes_digest,
          },
        };
      }
      if (engines.hostInterpreter) {
        const python = bound?.backend === "bwrap" ? bound.local_image : HOST_PYTHON;
        return { kind: "ready", binding: { backend: "bwrap", local_image: python, bytes_digest: null } };
      }
      return {
        kind: "unbound",
        reason: `the script runtime ${imageRef} is not bound to an image on this deployment, and runs on the host's interpreter are off: an operator binds it with svc-server runtime bind (docs/sandbox.md)`,
      };
    }
    return {
      kind: "unbound",
      reason: `the script runtime ${imageRef} is unbound on this deployment: no Docker engine with a bound image and no bubblewrap`,
    };
  }
  const [image] = await sql<{ state: string; state_reason: string | null }[]>`
    select state, state_reason from sandbox_images where image_ref = ${imageRef}`;
  if (!image || image.state === "registered" || image.state === "provisioning") {
    return { kind: "wait", reason: `the image ${imageRef} is being provisioned` };
  }
  if (image.state === "provisioning_failed") {
    return {
      kind: "failed",
      reason: `provisioning the image ${imageRef} failed: ${image.state_reason ?? "no reason recorded"}`,
    };
  }
  if (!engines.docker) {
    return {
      kind: "unbound",
      reason: `the image ${imageRef} needs a Docker engine, and none answers on this deployment`,
    };
  }
  return { kind: "ready", binding: { backend: "docker", local_image: imageRef } };
}

import { ImageState } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import type { SandboxEngines } from "../core/services/sandbox-runner.ts";

/** What kind of image a reference names. */
export function imageKind(imageRef: string): "builtin" | "runtime" | "custom" {
  if (imageRef.startsWith("svc-builtin/")) return "builtin";
  if (imageRef.startsWith("svc-runtime/")) return "runtime";
  return "custom";
}

export interface LiveImageState {
  state: ImageState;
  state_reason: string | null;
  /** The real image a runtime is bound to (docker image id, or a bwrap image's ChainID), or a custom image's digest. */
  runtime_digest: string | null;
  registered_at: string | null;
}

/**
 * An image's state on this deployment now: builtins are always available; a script runtime is
 * available when the operator bound it to a Docker image and an engine answers, or when bubblewrap
 * runs it on the host's interpreter, and unbound otherwise; a custom image has the state its
 * provisioning reached (registered until validation names it).
 */
export async function liveImageState(
  sql: Sql,
  engines: SandboxEngines,
  imageRef: string,
): Promise<LiveImageState> {
  switch (imageKind(imageRef)) {
    case "builtin":
      return { state: ImageState.available, state_reason: null, runtime_digest: null, registered_at: null };
    case "runtime": {
      const [bound] = await sql<
        {
          backend: string;
          local_image: string;
          source: string | null;
          runtime_bytes_digest: string | null;
          bound_at: Date;
        }[]
      >`
        select backend, local_image, source, runtime_bytes_digest, bound_at from sandbox_runtimes where image_ref = ${imageRef}`;
      const registered_at = bound?.bound_at.toISOString() ?? null;
      if (bound?.backend === "docker" && engines.docker) {
        return {
          state: ImageState.available,
          state_reason: null,
          runtime_digest: bound.local_image,
          registered_at,
        };
      }
      if (engines.bwrap && bound?.backend === "bwrap" && bound.source) {
        return {
          state: ImageState.available,
          state_reason: null,
          runtime_digest: bound.runtime_bytes_digest,
          registered_at,
        };
      }
      if (engines.bwrap && engines.hostInterpreter) {
        return {
          state: ImageState.available,
          state_reason:
            "runs under bubblewrap on the host's interpreter, whose bytes runs cannot name: bind it to an image for reproducible verdicts (docs/sandbox.md)",
          runtime_digest: null,
          registered_at,
        };
      }
      return {
        state: ImageState.unbound,
        state_reason: bound
          ? `bound to ${bound.local_image} on ${bound.backend}, but that engine does not answer here`
          : engines.bwrap
            ? "no operator has bound this runtime to an image (svc-server runtime bind), and runs on the host's interpreter are off (SVC_BWRAP_HOST_INTERPRETER is not 1)"
            : "no operator has bound this runtime (POST /admin/sandbox-runtimes) and bubblewrap is not available",
        runtime_digest: null,
        registered_at,
      };
    }
    case "custom": {
      const [image] = await sql<
        { state: ImageState; state_reason: string | null; image_digest: string; registered_at: Date }[]
      >`
        select state, state_reason, image_digest, registered_at from sandbox_images where image_ref = ${imageRef}`;
      if (!image)
        return {
          state: ImageState.registered,
          state_reason: null,
          runtime_digest: null,
          registered_at: null,
        };
      return {
        state: image.state,
        state_reason: image.state_reason,
        runtime_digest: image.image_digest,
        registered_at: image.registered_at.toISOString(),
      };
    }
  }
}

import { chainIdOf, RUNTIME_SOURCE } from "@svc/app";
import type { RuntimeBackend } from "@svc/schemas";
import Docker from "dockerode";
import { isUniqueViolation } from "../core/db/is-unique-violation.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";

/** A script runtime's binding on this deployment. */
export interface RuntimeBindingRecord {
  image_ref: string;
  backend: RuntimeBackend;
  local_image: string;
  /** bwrap image bindings: the reference the image's root is unpacked from on each host. */
  source: string | null;
  /** The OCI ChainID of the bound image's layers: what runs record as the bytes that ran; null for a host interpreter. */
  runtime_bytes_digest: string | null;
  bound_by_user_id: string | null;
  bound_at: string;
}

export interface BindRuntimeInput {
  image_ref: string;
  backend: RuntimeBackend;
  /**
   * docker: a local image name or id, pinned to its id here; bwrap: an image source (skopeo's
   * docker-daemon:, docker://, oci:... references), unpacked and pinned to its ChainID here, or an
   * absolute interpreter path on the host (whose bytes no record can name).
   */
  local_image: string;
}

/** The script runtimes the catalogue knows (app/src/lint/implementation-catalogue.ts). */
export const KNOWN_RUNTIMES = ["svc-runtime/python:1"] as const;

/**
 * Binds a script runtime to a real image once per deployment (POST /admin/sandbox-runtimes). A
 * Docker image is resolved on the local engine and recorded by its id (`sha256:...`), so the
 * binding cannot move with a tag. Binding again is refused: every published implementation on
 * the runtime would change what it runs.
 */
export async function bindRuntime(
  services: Pick<Services, "sql" | "clock" | "sandbox">,
  /** Null: an operator with svc-server. */
  userId: string | null,
  input: BindRuntimeInput,
  docker = new Docker(),
): Promise<RuntimeBindingRecord> {
  if (!(KNOWN_RUNTIMES as readonly string[]).includes(input.image_ref)) {
    throw new ServiceError(
      "invalid_input",
      `image_ref must be a catalogue runtime: ${KNOWN_RUNTIMES.join(", ")}`,
      {
        field: "image_ref",
      },
    );
  }
  let localImage = input.local_image;
  let source: string | null = null;
  let bytesDigest: string | null = null;
  if (input.backend === "docker") {
    try {
      const image = await docker.getImage(input.local_image).inspect();
      localImage = image.Id;
      bytesDigest = chainIdOf(image.RootFS?.Layers ?? []);
    } catch (error) {
      throw new ServiceError(
        "invalid_input",
        `local_image "${input.local_image}" is not an image on this deployment's Docker engine (${(error as Error).message}); load it first (scripts/build-python-image.sh)`,
        { field: "local_image" },
      );
    }
  } else if (RUNTIME_SOURCE.test(input.local_image)) {
    if (!services.sandbox.prepareRuntime) {
      throw new ServiceError(
        "invalid_input",
        "this deployment's sandbox runner cannot unpack runtime images",
        {
          field: "local_image",
        },
      );
    }
    try {
      const prepared = await services.sandbox.prepareRuntime(input.local_image);
      source = input.local_image;
      localImage = prepared.chainId;
      bytesDigest = prepared.chainId;
    } catch (error) {
      throw new ServiceError(
        "invalid_input",
        `local_image "${input.local_image}" could not be copied and unpacked (${firstLine(error)}); check the reference with skopeo inspect`,
        { field: "local_image" },
      );
    }
  } else if (!input.local_image.startsWith("/")) {
    throw new ServiceError(
      "invalid_input",
      "local_image for bwrap must be an image source (docker-daemon:<name>, docker://<ref>, oci:<dir>) or the absolute path of a host interpreter such as /usr/bin/python3",
      {
        field: "local_image",
      },
    );
  }
  try {
    const [row] = await services.sql<{ bound_at: Date }[]>`
      insert into sandbox_runtimes (image_ref, backend, local_image, source, runtime_bytes_digest, bound_by_user_id, bound_at)
      values (${input.image_ref}, ${input.backend}, ${localImage}, ${source}, ${bytesDigest}, ${userId}, ${services.clock()})
      returning bound_at`;
    return {
      image_ref: input.image_ref,
      backend: input.backend,
      local_image: localImage,
      source,
      runtime_bytes_digest: bytesDigest,
      bound_by_user_id: userId,
      bound_at: row!.bound_at.toISOString(),
    };
  } catch (error) {
    if (!isUniqueViolation(error, "sandbox_runtimes_pkey")) throw error;
    const [existing] = await listRuntimeBindings(services, input.image_ref);
    throw new ServiceError(
      "conflict",
      `${input.image_ref} is already bound on this deployment; a runtime is bound once`,
      {
        binding: existing,
      },
    );
  }
}

/** The runtime bindings of this deployment (all, or one). */
export async function listRuntimeBindings(
  services: Pick<Services, "sql">,
  imageRef?: string,
): Promise<RuntimeBindingRecord[]> {
  const rows = await services.sql<(Omit<RuntimeBindingRecord, "bound_at"> & { bound_at: Date })[]>`
    select image_ref, backend, local_image, source, runtime_bytes_digest, bound_by_user_id, bound_at from sandbox_runtimes
    ${imageRef ? services.sql`where image_ref = ${imageRef}` : services.sql``} order by image_ref`;
  return rows.map((row) => ({ ...row, bound_at: row.bound_at.toISOString() }));
}

/** A runtime's bytes as anyone may read them, for replaying a verdict (GET /api/runtimes). */
export interface PublishedRuntime {
  image_ref: string;
  /** The OCI ChainID runs on this runtime record as the bytes that ran; null: not bound to an image. */
  runtime_bytes_digest: string | null;
  /** A registry reference (docker://...) the bytes can be copied from; null when the binding names only a host-local source. */
  source: string | null;
}

/**
 * What a replay needs to fetch the runtime a run attests: each binding's ChainID and, when it was
 * bound from a registry, that reference. Host-local sources (docker-daemon:, oci: folders) mean
 * nothing elsewhere and are not published (docs/attestations.md "Replaying a run").
 */
export async function publishedRuntimes(services: Pick<Services, "sql">): Promise<PublishedRuntime[]> {
  return (await listRuntimeBindings(services)).map((binding) => ({
    image_ref: binding.image_ref,
    runtime_bytes_digest: binding.runtime_bytes_digest,
    source: binding.source?.startsWith("docker://") ? binding.source : null,
  }));
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (
    text
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.slice(0, 300) ?? "no reason given"
  );
}

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
  bound_by_user_id: string | null;
  bound_at: string;
}

export interface BindRuntimeInput {
  image_ref: string;
  backend: RuntimeBackend;
  /** docker: a local image name or id, pinned to its id here; bwrap: an absolute interpreter path. */
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
  services: Services,
  userId: string,
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
  if (input.backend === "docker") {
    try {
      localImage = (await docker.getImage(input.local_image).inspect()).Id;
    } catch (error) {
      throw new ServiceError(
        "invalid_input",
        `local_image "${input.local_image}" is not an image on this deployment's Docker engine (${(error as Error).message}); load it first (scripts/build-python-image.sh)`,
        { field: "local_image" },
      );
    }
  } else if (!input.local_image.startsWith("/")) {
    throw new ServiceError(
      "invalid_input",
      "local_image for bwrap must be the absolute path of the interpreter, such as /usr/bin/python3",
      {
        field: "local_image",
      },
    );
  }
  try {
    const [row] = await services.sql<{ bound_at: Date }[]>`
      insert into sandbox_runtimes (image_ref, backend, local_image, bound_by_user_id, bound_at)
      values (${input.image_ref}, ${input.backend}, ${localImage}, ${userId}, ${services.clock()})
      returning bound_at`;
    return {
      image_ref: input.image_ref,
      backend: input.backend,
      local_image: localImage,
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
  services: Services,
  imageRef?: string,
): Promise<RuntimeBindingRecord[]> {
  const rows = await services.sql<(Omit<RuntimeBindingRecord, "bound_at"> & { bound_at: Date })[]>`
    select image_ref, backend, local_image, bound_by_user_id, bound_at from sandbox_runtimes
    ${imageRef ? services.sql`where image_ref = ${imageRef}` : services.sql``} order by image_ref`;
  return rows.map((row) => ({ ...row, bound_at: row.bound_at.toISOString() }));
}

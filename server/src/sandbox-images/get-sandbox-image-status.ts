import { catalogueDigest } from "@svc/app";
import type { ConformanceStatus, ImageState } from "@svc/schemas";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import { readableContractSql } from "../visibility/mechanism-visibility-sql.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { imageKind, liveImageState } from "./image-state.ts";
import { type Differential, readDifferentials } from "./read-differentials.ts";

export interface SandboxImageStatus {
  image_ref: string;
  image_digest: string;
  runtime_digest: string | null;
  state: ImageState;
  state_reason: string | null;
  registered_at: string | null;
  implementations: Array<{
    verifier_implementation_id: string;
    contract_id: string;
    stage_key: string;
    conformance: ConformanceStatus;
    /** Differential conformance against the stage's then-current implementation (issue 19 item 5). */
    differential: Differential;
  }>;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/**
 * get_sandbox_image_status (spec 4.1): an image named by its author reference, a bare digest, or
 * a script runtime or builtin name, with its state here and the implementations (of Contracts the
 * viewer may read) that run on it. An image nobody published is not_found.
 */
export async function getSandboxImageStatus(
  services: Services,
  viewer: Viewer,
  image: string,
): Promise<SandboxImageStatus> {
  const { sql } = services;
  const rows = await sql<
    {
      id: string;
      verifier_contract_id: string;
      stage_key: string;
      image_ref: string;
      image_digest: string;
      status: ConformanceStatus;
    }[]
  >`
    select vi.id, vi.verifier_contract_id, vi.stage_key, vi.runtime->>'image_ref' as image_ref,
      vi.runtime->>'image_digest' as image_digest, vi.conformance->>'status' as status
    from verifier_implementations vi join verifier_contracts vc on vc.id = vi.verifier_contract_id
    where (vi.runtime->>'image_ref' = ${image} or vi.runtime->>'image_digest' = ${image})
      and ${readableContractSql(sql, viewer)}
    order by vi.created_at, vi.id`;
  const [registered] = rows.length
    ? []
    : await sql<{ image_ref: string; image_digest: string }[]>`
        select image_ref, image_digest from sandbox_images
        where (image_ref = ${image} or image_digest = ${image}) and registered_by_user_id = ${viewer.userId}`;
  const imageRef = rows[0]?.image_ref ?? registered?.image_ref ?? catalogueName(image);
  if (!imageRef) {
    throw new ServiceError(
      "not_found",
      `no published implementation you can read runs on "${image}"; name an image by its reference, its sha256 digest, or a runtime such as svc-runtime/python:1`,
      { image },
    );
  }
  const differentials = await readDifferentials(
    sql,
    rows.map((row) => row.id),
  );
  const live = await liveImageState(sql, await services.sandbox.engines(), imageRef);
  return {
    image_ref: imageRef,
    image_digest: rows[0]?.image_digest ?? registered?.image_digest ?? catalogueDigest(imageRef),
    runtime_digest: live.runtime_digest,
    state: live.state,
    state_reason: live.state_reason,
    registered_at: live.registered_at,
    implementations: rows.map((row) => ({
      verifier_implementation_id: row.id,
      contract_id: row.verifier_contract_id,
      stage_key: row.stage_key,
      conformance: row.status,
      differential: differentials.get(row.id)!,
    })),
  };
}

/** Catalogue names (builtins, runtimes) have a status even before anything runs on them. */
function catalogueName(image: string): string | undefined {
  if (DIGEST.test(image)) return undefined;
  return imageKind(image) === "custom" ? undefined : image;
}

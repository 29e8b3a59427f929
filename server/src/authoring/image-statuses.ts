import type { Plan } from "@svc/schemas";
import type { ImageStatus } from "./validation-result.ts";

/** The script runtime the catalogue knows; an operator binds it to a real image per deployment. */
const SCRIPT_RUNTIME_PREFIX = "svc-runtime/";
const BUILTIN_PREFIX = "svc-builtin/";

/**
 * One entry per distinct sandbox image the plan's implementations name: builtins run in process and
 * are `available`; a script runtime is `unbound` until an operator binds it on this deployment
 * (POST /admin/sandbox-runtimes, later work); a custom image pinned by digest is `registered`
 * (provisioning is later work). Sorted by image_ref.
 */
export function imageStatuses(plan: Plan): ImageStatus[] {
  const images = new Map<string, ImageStatus>();
  for (const implementation of Object.values(plan.verifier_implementations)) {
    const { image_ref, image_digest } = implementation.runtime;
    images.set(image_ref, { image_ref, image_digest, state: imageState(image_ref) });
  }
  return [...images.values()].sort((a, b) =>
    a.image_ref < b.image_ref ? -1 : a.image_ref > b.image_ref ? 1 : 0,
  );
}

/** Whether an image is a custom one (naming it needs the custom_verifier capability). */
export function isCustomImage(imageRef: string): boolean {
  return imageState(imageRef) === "registered";
}

function imageState(imageRef: string): ImageStatus["state"] {
  if (imageRef.startsWith(BUILTIN_PREFIX)) return "available";
  if (imageRef.startsWith(SCRIPT_RUNTIME_PREFIX)) return "unbound";
  return "registered";
}

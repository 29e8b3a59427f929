import type { ImageStatus, Plan } from "@svc/schemas";
import type { Services } from "../core/services/services.ts";
import { imageKind, liveImageState } from "../sandbox-images/image-state.ts";

/** The distinct images the plan's implementations name, sorted by image_ref. */
export function plannedImages(plan: Plan): Array<{ image_ref: string; image_digest: string }> {
  const images = new Map<string, { image_ref: string; image_digest: string }>();
  for (const implementation of Object.values(plan.verifier_implementations)) {
    const { image_ref, image_digest } = implementation.runtime;
    images.set(image_ref, { image_ref, image_digest });
  }
  return [...images.values()].sort((a, b) =>
    a.image_ref < b.image_ref ? -1 : a.image_ref > b.image_ref ? 1 : 0,
  );
}

/**
 * validate's `images` (spec 4.1): one entry per distinct image with its state on this deployment
 * now: builtins available; a script runtime available or unbound (image-state.ts); a custom image
 * registered until its provisioning moves it on.
 */
export async function imageStatuses(services: Services, plan: Plan): Promise<ImageStatus[]> {
  const engines = await services.sandbox.engines();
  const statuses: ImageStatus[] = [];
  for (const image of plannedImages(plan)) {
    const live = await liveImageState(services.sql, engines, image.image_ref);
    statuses.push({ ...image, state: live.state });
  }
  return statuses;
}

/** Whether an image is a custom one (naming it needs the custom_verifier capability). */
export function isCustomImage(imageRef: string): boolean {
  return imageKind(imageRef) === "custom";
}

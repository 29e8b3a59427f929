import Docker from "dockerode";
import type { Services } from "../core/services/services.ts";

/**
 * Provisions a registered custom image (the `provision_image` job): pulls it by its digest-pinned
 * reference from the Docker engine of this deployment and checks the digest, then marks it
 * `available`; any failure is `provisioning_failed` with the reason (a run reaching a stage on it
 * then ends `error`, spec 3). Without an engine it fails at once: nothing else can run it.
 */
export async function provisionImage(
  services: Services,
  imageRef: string,
  docker = new Docker(),
): Promise<void> {
  const { sql } = services;
  const [claimed] = await sql<{ image_digest: string }[]>`
    update sandbox_images set state = 'provisioning', state_reason = null, updated_at = ${services.clock()}
    where image_ref = ${imageRef} and state in ('registered', 'provisioning')
    returning image_digest`;
  if (!claimed) return;
  const fail = async (reason: string) => {
    await sql`
      update sandbox_images set state = 'provisioning_failed', state_reason = ${reason.slice(0, 4000)}, updated_at = ${services.clock()}
      where image_ref = ${imageRef}`;
    services.log.warn({ image_ref: imageRef, reason }, "image provisioning failed");
  };
  if (!(await services.sandbox.engines()).docker) {
    await fail("no Docker engine answers on this deployment, so custom images cannot run here");
    return;
  }
  try {
    const stream = await docker.pull(imageRef);
    await new Promise<void>((resolve, reject) => {
      docker.modem.followProgress(stream, (error: Error | null) => (error ? reject(error) : resolve()));
    });
    const info = await docker.getImage(imageRef).inspect();
    const digests = (info.RepoDigests ?? []).map((ref) => ref.slice(ref.lastIndexOf("@") + 1));
    if (!digests.includes(claimed.image_digest)) {
      await fail(
        `the pulled image's digests (${digests.join(", ") || "none"}) do not include ${claimed.image_digest}`,
      );
      return;
    }
  } catch (error) {
    await fail(`pulling ${imageRef} failed: ${(error as Error).message}`);
    return;
  }
  await sql`
    update sandbox_images set state = 'available', state_reason = null, updated_at = ${services.clock()}
    where image_ref = ${imageRef}`;
}

import type { Sql } from "../core/db/connect-sql.ts";
import { TaskName } from "../core/jobs/task-name.ts";

/** The graphile-worker task that provisions (pulls) a custom image. */

/**
 * Registers the custom images a validated package names and queues their provisioning (spec 4.1
 * validate_authoring_upload). An image already registered keeps its state; one whose provisioning
 * failed is queued again, since a registry may have recovered.
 */
export async function registerImages(
  sql: Sql,
  userId: string,
  images: ReadonlyArray<{ image_ref: string; image_digest: string }>,
): Promise<void> {
  for (const image of images) {
    const [row] = await sql<{ state: string }[]>`
      insert into sandbox_images (image_ref, image_digest, registered_by_user_id)
      values (${image.image_ref}, ${image.image_digest}, ${userId})
      on conflict (image_ref) do update set
        state = case when sandbox_images.state = 'provisioning_failed' then 'registered' else sandbox_images.state end,
        updated_at = case when sandbox_images.state = 'provisioning_failed' then now() else sandbox_images.updated_at end
      returning state`;
    if (row?.state === "registered") {
      await sql`
        select graphile_worker.add_job(${TaskName.provisionImage}, json_build_object('image_ref', ${image.image_ref}::text),
          max_attempts => 3, job_key => ${`provision:${image.image_ref}`})`;
    }
  }
}

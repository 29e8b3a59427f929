import { mediaTypeOf } from "@svc/app";
import { IdPrefix } from "@svc/schemas";
import { randomId } from "../core/ids/random-id.ts";
import { byteOrder, type PublishContext } from "./publish-context.ts";

/**
 * Step 1 of a publication: one SkillVersion per planned skill. Skills are named per publisher; a
 * version whose content hash the skill already has is reused, anything else becomes the skill's
 * next version_number. Returns the `skv_` id of each planned skill, by content hash.
 */
export async function publishSkills(ctx: PublishContext): Promise<Map<string, string>> {
  const { tx, userId } = ctx;
  const ids = new Map<string, string>();
  const skills = Object.values(ctx.plan.skills).sort((a, b) => byteOrder(a.content_hash, b.content_hash));
  for (const skill of skills) {
    await tx`
      insert into skills (id, publisher_user_id, name) values (${randomId(IdPrefix.skill)}, ${userId}, ${skill.name})
      on conflict (publisher_user_id, name) do nothing`;
    const [skillRow] = await tx<{ id: string }[]>`
      select id from skills where publisher_user_id = ${userId} and name = ${skill.name}`;
    const skillId = skillRow!.id;
    const [existing] = await tx<{ id: string }[]>`
      select id from skill_versions where skill_id = ${skillId} and content_hash = ${skill.content_hash}`;
    if (existing) {
      ids.set(skill.content_hash, existing.id);
      continue;
    }
    const id = randomId(IdPrefix.skillVersion);
    const files = [...skill.files]
      .sort((a, b) => byteOrder(a.path, b.path))
      .map((f) => ({
        path: f.path,
        content_hash: f.content_hash,
        size_bytes: f.size_bytes,
        media_type: mediaTypeOf(f.path),
      }));
    const [created] = await tx<{ version_number: number }[]>`
      insert into skill_versions (id, skill_id, version_number, content_hash, name, description, files, created_by_user_id)
      values (${id}, ${skillId},
        (select coalesce(max(version_number), 0) + 1 from skill_versions where skill_id = ${skillId}),
        ${skill.content_hash}, ${skill.name}, ${skill.description}, ${tx.json(files)}, ${userId})
      returning version_number`;
    ids.set(skill.content_hash, id);
    ctx.audit.push({
      action: "create",
      subject_kind: "skill_version",
      subject_id: id,
      detail: { name: skill.name, version_number: created!.version_number },
    });
  }
  return ids;
}

import { hashJson } from "@svc/app";
import { IdPrefix } from "@svc/schemas";
import { randomId } from "../core/ids/random-id.ts";
import { byteOrder, type PublishContext } from "./publish-context.ts";

const SLUG_MAX = 64;

/**
 * Step 2: one ReviewProtocol per planned protocol, its local skills (planned as content hashes)
 * replaced by the published `skv_` ids. Content-addressed per publisher: the same published
 * document reuses its record. A new one gets a slug from its title, unique per publisher.
 * Returns the `rpt_` id of each planned protocol, by its plan content hash.
 */
export async function publishReviewProtocols(
  ctx: PublishContext,
  skillIds: ReadonlyMap<string, string>,
): Promise<Map<string, string>> {
  const { tx, userId } = ctx;
  const ids = new Map<string, string>();
  const planned = Object.values(ctx.plan.review_protocols).sort((a, b) =>
    byteOrder(a.content_hash, b.content_hash),
  );
  for (const { content_hash: planHash, document: plannedDocument } of planned) {
    const document = structuredClone(plannedDocument);
    for (const node of document.nodes) {
      for (const ref of node.skills ?? [])
        ref.skill_version_id = skillIds.get(ref.skill_version_id) ?? ref.skill_version_id;
    }
    const contentHash = hashJson(document);
    const [existing] = await tx<{ id: string }[]>`
      select id from review_protocols where publisher_user_id = ${userId} and content_hash = ${contentHash}`;
    if (existing) {
      ids.set(planHash, existing.id);
      continue;
    }
    const slug = await freeSlug(ctx, slugOf(document.title));
    const id = randomId(IdPrefix.reviewProtocol);
    await tx`
      insert into review_protocols (id, slug, publisher_user_id, content_hash, document)
      values (${id}, ${slug}, ${userId}, ${contentHash}, ${tx.json(document as never)})`;
    ids.set(planHash, id);
    ctx.audit.push({ action: "create", subject_kind: "review_protocol", subject_id: id, detail: { slug } });
  }
  return ids;
}

/** A slug from a title: lowercase letters and digits joined by single hyphens, never empty. */
export function slugOf(title: string): string {
  const words = title.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  // Leave room for a "-<n>" suffix that makes it unique.
  const slug = words
    .join("-")
    .slice(0, SLUG_MAX - 6)
    .replace(/-+$/, "");
  return slug === "" ? "review-protocol" : slug;
}

/** `base`, or `base-2`, `base-3`... whichever the publisher has not used. */
async function freeSlug(ctx: PublishContext, base: string): Promise<string> {
  const taken = new Set(
    (
      await ctx.tx<{ slug: string }[]>`
        select slug from review_protocols
        where publisher_user_id = ${ctx.userId} and (slug = ${base} or slug like ${`${base}-%`})`
    ).map((r) => r.slug),
  );
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

import type { ReviewProtocolDocument } from "@svc/schemas";
import { type ContentHash, hashJson } from "../hash/sha256.ts";
import { checkProtocolRules } from "./check-protocol-rules.ts";
import type { SkillEntry } from "./check-skills.ts";
import type { LintContext } from "./lint-context.ts";

/** A review-protocol.json that passed pass 3. */
export interface ProtocolEntry {
  file: string;
  /** The document as planned: `./skills/<name>` replaced by the skill's content hash. */
  document: ReviewProtocolDocument;
  /** sha256 of the canonical planned document. */
  contentHash: ContentHash;
}

const LOCAL_SKILL = "./skills/";

/**
 * Lint pass 3 for the review-protocol.json in `prefix`, if there is one: the document schema,
 * then protocol rules 1 to 16. `skills` are the skills the package offers at that place.
 */
export async function checkProtocol(
  ctx: LintContext,
  prefix: string,
  skills: ReadonlyMap<string, SkillEntry>,
): Promise<ProtocolEntry | undefined> {
  const file = `${prefix}review-protocol.json`;
  if (!ctx.has(file)) return undefined;
  const document = await ctx.schemaFile<ReviewProtocolDocument>(file, "review-protocol-document");
  if (!document) return undefined;
  const { errors, notes } = checkProtocolRules(document, { file, localSkills: new Set(skills.keys()) });
  for (const e of errors) ctx.error(e.file, e.path, e.code, e.message, e.rule);
  for (const n of notes) ctx.note(n.file, n.path, n.code, n.message);
  if (errors.length > 0) return undefined;

  const planned = structuredClone(document);
  for (const node of planned.nodes) {
    for (const ref of node.skills ?? []) {
      if (ref.skill_version_id.startsWith(LOCAL_SKILL)) {
        const skill = skills.get(ref.skill_version_id.slice(LOCAL_SKILL.length));
        if (skill) ref.skill_version_id = skill.contentHash;
      }
    }
  }
  return { file, document: planned, contentHash: hashJson(planned) };
}

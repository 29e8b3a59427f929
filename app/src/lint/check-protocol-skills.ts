import { pointer, type ReviewProtocolDocument } from "@svc/schemas";
import type { ProtocolFindings } from "./protocol-findings.ts";

const LOCAL_SKILL = "./skills/";

/** Each review node's `./skills/<name>` reference names a skill directory of the package. */
export function checkProtocolSkills(
  document: ReviewProtocolDocument,
  localSkills: ReadonlySet<string>,
  findings: ProtocolFindings,
): void {
  document.nodes.forEach((node, i) => {
    if (node.type !== "review") return;
    (node.skills ?? []).forEach((ref, j) => {
      if (!ref.skill_version_id.startsWith(LOCAL_SKILL)) return;
      const name = ref.skill_version_id.slice(LOCAL_SKILL.length);
      if (localSkills.has(name)) return;
      findings.notFound(
        pointer("nodes", i, "skills", j, "skill_version_id"),
        `no skill directory skills/${name}/ in this package; add it with a SKILL.md or reference a published skv_ id`,
      );
    });
  });
}

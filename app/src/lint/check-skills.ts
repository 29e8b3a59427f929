import type { SkillFrontmatter } from "@svc/schemas";
import { parse as parseYaml } from "yaml";
import { type ContentHash, hashJson } from "../hash/sha256.ts";
import { illFormedStringAt } from "./ill-formed-string.ts";
import type { LintContext } from "./lint-context.ts";

/** A skill directory that passed its checks: one SkillVersion once published. */
export interface SkillEntry {
  name: string;
  description: string;
  /** Files relative to the skill directory, in byte order. */
  files: Array<{ path: string; content_hash: ContentHash; size_bytes: number }>;
  /** Hash of the canonical {name, description, files} snapshot: equal content, equal skill. */
  contentHash: ContentHash;
}

/**
 * Lint pass 2: each `<prefix>skills/<name>/` against the skill package rules. A skill is a
 * directory with a SKILL.md whose YAML frontmatter (between `---` lines) names the directory and
 * describes the skill. Returns the skills that passed, by name.
 */
export async function checkSkills(ctx: LintContext, prefix: string): Promise<Map<string, SkillEntry>> {
  const root = `${prefix}skills/`;
  const byName = new Map<string, string[]>();
  for (const path of ctx.under(root)) {
    const rest = path.slice(root.length);
    const slash = rest.indexOf("/");
    if (slash === -1) continue; // reported by the layout pass
    const name = rest.slice(0, slash);
    byName.set(name, [...(byName.get(name) ?? []), rest.slice(slash + 1)]);
  }
  const skills = new Map<string, SkillEntry>();
  for (const [name, files] of byName) {
    const skill = await checkSkill(ctx, `${root}${name}/`, name, files);
    if (skill) skills.set(name, skill);
  }
  return skills;
}

async function checkSkill(
  ctx: LintContext,
  dir: string,
  name: string,
  files: string[],
): Promise<SkillEntry | undefined> {
  const entry = `${dir}SKILL.md`;
  if (!files.includes("SKILL.md")) {
    ctx.error(
      entry,
      "",
      "missing_file",
      `skill "${name}" needs a SKILL.md with name and description frontmatter`,
    );
    return undefined;
  }
  const frontmatter = readFrontmatter(await ctx.text(entry));
  if (!frontmatter.ok) {
    ctx.error(entry, "", "invalid_json", frontmatter.message);
    return undefined;
  }
  const meta = ctx.schemaValue<SkillFrontmatter>(entry, "", frontmatter.value, "skill-frontmatter");
  if (!meta) return undefined;
  if (meta.name !== name) {
    ctx.error(
      entry,
      "/name",
      "schema_violation",
      `frontmatter name "${meta.name}" must equal the directory name "${name}"; rename one of them`,
    );
    return undefined;
  }
  const listed = await Promise.all(
    files.map(async (path) => ({
      path,
      content_hash: await ctx.hash(dir + path),
      size_bytes: ctx.tree.size(dir + path) ?? 0,
    })),
  );
  const snapshot = { name, description: meta.description, files: listed };
  return { ...snapshot, contentHash: hashJson(snapshot) };
}

type Frontmatter = { ok: true; value: unknown } | { ok: false; message: string };

/** Reads the YAML frontmatter between the leading `---` line and the next `---` line. */
export function readFrontmatter(text: string): Frontmatter {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---") {
    return {
      ok: false,
      message: "SKILL.md must start with a `---` line opening YAML frontmatter (name, description)",
    };
  }
  const end = lines.indexOf("---", 1);
  const close = end === -1 ? lines.findIndex((line, i) => i > 0 && line.trim() === "---") : end;
  if (close === -1) {
    return { ok: false, message: "SKILL.md frontmatter is not closed: add a `---` line after it" };
  }
  try {
    const value: unknown = parseYaml(lines.slice(1, close).join("\n"));
    const bad = illFormedStringAt(value);
    if (bad !== undefined)
      return {
        ok: false,
        message: `SKILL.md frontmatter at "${bad}" holds a lone surrogate or a NUL (\\u0000); use a valid character`,
      };
    return { ok: true, value: value ?? {} };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return { ok: false, message: `SKILL.md frontmatter is not valid YAML: ${reason}` };
  }
}

import { documentCeiling, documentCeilingMessage } from "@svc/schemas";
import type { LintContext } from "./lint-context.ts";

/**
 * Lint pass 0: every document of the package (statement.md, SKILL.md, the JSON files) within its
 * ceiling (schemas/src/ceilings.ts), judged by its size before it is read. Reports each one over
 * as a `schema_violation` naming the file, the field and the ceiling; true when any was.
 */
export function checkCeilings(ctx: LintContext): boolean {
  let over = false;
  for (const path of ctx.paths) {
    const ceiling = documentCeiling(path);
    const size = ctx.tree.size(path);
    if (ceiling === undefined || size === undefined || size <= ceiling.bytes) continue;
    over = true;
    ctx.error(path, "", "schema_violation", documentCeilingMessage(path, size, ceiling));
  }
  return over;
}

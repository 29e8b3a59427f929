import type { LintNote, Plan } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { contractFile } from "./package-files.ts";

/**
 * A yanked ReviewProtocol is withdrawn from recommendation (spec 2.1), yet its pins keep
 * resolving: a package whose contract stage pins a yanked `rpt_` still validates and publishes,
 * with a `yanked_review_protocol` note naming the yank's reason, so its author can move on.
 */
export async function yankedProtocolNotes(
  sql: Sql,
  plan: Plan,
  has: (path: string) => boolean,
): Promise<LintNote[]> {
  const pins: Array<{ id: string; file: string; path: string }> = [];
  for (const [hash, { document }] of Object.entries(plan.verifier_contracts)) {
    for (const [i, stage] of document.stages.entries()) {
      if (stage.review_protocol_id?.startsWith("rpt_")) {
        pins.push({
          id: stage.review_protocol_id,
          file: contractFile(plan, hash, has),
          path: `/stages/${i}/review_protocol_id`,
        });
      }
    }
  }
  if (pins.length === 0) return [];
  const yanked = await sql<{ id: string; yanked_at: Date; yank_reason_md: string | null }[]>`
    select id, yanked_at, yank_reason_md from review_protocols
    where id = any(${[...new Set(pins.map((pin) => pin.id))]}) and yanked_at is not null`;
  const byId = new Map(yanked.map((row) => [row.id, row]));
  return pins.flatMap((pin) => {
    const row = byId.get(pin.id);
    if (!row) return [];
    return [
      {
        file: pin.file,
        path: pin.path,
        code: "yanked_review_protocol" as const,
        message: `review protocol ${pin.id} was yanked at ${row.yanked_at.toISOString()}${row.yank_reason_md ? `: ${row.yank_reason_md}` : ""}; the pin still resolves, but prefer a protocol that is not yanked`,
      },
    ];
  });
}

import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { canReadWork } from "../visibility/work-access.ts";
import { findProblem } from "./find-problem.ts";
import type { ProblemRow } from "./problem-row.ts";

/**
 * The Problem the viewer names, when they may read it. Unknown and invisible are the same
 * not_found, so a private Problem's existence never leaks.
 */
export async function readProblem(sql: Sql, viewer: Viewer | null, reference: string): Promise<ProblemRow> {
  const row = await findProblem(sql, reference);
  if (!row || !canReadWork(viewer, row)) throw problemNotFound(reference);
  return row;
}

/** Unknown and invisible are the same not_found, so a private Problem's existence never leaks. */
export function problemNotFound(reference: string): ServiceError {
  return new ServiceError("not_found", `no problem has the id or slug "${reference}"`, {
    problem: reference,
  });
}

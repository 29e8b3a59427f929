import { currentImplementation } from "@svc/app";
import { type ConformanceStatus, IdPrefix, idPattern } from "@svc/schemas";
import type { Sql } from "../core/db/connect-sql.ts";
import { ServiceError } from "../core/errors/service-error.ts";
import { findProblem } from "../problems/find-problem.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { canReadWork } from "../visibility/work-access.ts";

/** The media type a script checker's program is served with. */
export const PROGRAM_MEDIA_TYPE = "text/x-python";

/** `checkers/<stage_key>/<filename>`: where a revision publishes a stage's script checker. */
export function checkerFilePath(stageKey: string, filename: string): string {
  return `checkers/${stageKey}/${filename}`;
}

/** A checker program as a revision file, with the implementation whose program it is. */
export interface CheckerRevisionFile {
  problem_revision_id: string;
  stage_key: string;
  path: string;
  verifier_implementation_id: string;
  filename: string;
  content_hash: string;
  size_bytes: number;
}

/**
 * The revision file `checkers/<stage_key>/<filename>` (spec 4.1): the program of the script
 * checker that runs the stage of the revision's pinned Contract now, its current implementation
 * by the shared rule (highest non-yanked version whose conformance passed), the very bytes
 * `GET /api/verifier-implementations/{id}/program` serves. Readable by whoever may read the
 * revision's Problem, like its reference inputs; a program is never sealed (lint keeps sealed
 * bytes out of it). not_found names the file to ask for when the filename is not the current one.
 */
export async function checkerRevisionFile(
  sql: Sql,
  viewer: Viewer,
  revisionId: string,
  stageKey: string,
  filename: string,
): Promise<CheckerRevisionFile> {
  const path = checkerFilePath(stageKey, filename);
  const missing = (why: string) =>
    new ServiceError("not_found", `problem revision "${revisionId}" has no file ${path}: ${why}`, {
      problem_revision_id: revisionId,
      path,
    });
  const [revision] = idPattern(IdPrefix.problemRevision).test(revisionId)
    ? await sql<{ problem_id: string; verifier_contract_id: string | null }[]>`
        select problem_id, verifier_contract_id from problem_revisions where id = ${revisionId}`
    : [];
  const problem = revision ? await findProblem(sql, revision.problem_id) : null;
  if (!revision || !problem || !canReadWork(viewer, problem)) throw missing("no such revision you can read");
  if (!revision.verifier_contract_id) throw missing("the revision pins no verifier contract");
  const rows = await sql<
    {
      id: string;
      version_number: number;
      yanked_at: Date | null;
      conformance: { status: ConformanceStatus };
      program: { filename: string; content_hash: string; size_bytes: number } | null;
    }[]
  >`
    select id, version_number, yanked_at, conformance, program from verifier_implementations
    where verifier_contract_id = ${revision.verifier_contract_id} and stage_key = ${stageKey}`;
  const { current } = currentImplementation(rows);
  if (!current) throw missing(`stage "${stageKey}" has no current implementation`);
  if (!current.program) throw missing(`stage "${stageKey}" runs an image or a builtin, not a script program`);
  if (current.program.filename !== filename) {
    throw missing(`the stage's program is ${checkerFilePath(stageKey, current.program.filename)}`);
  }
  return {
    problem_revision_id: revisionId,
    stage_key: stageKey,
    path,
    verifier_implementation_id: current.id,
    ...current.program,
  };
}

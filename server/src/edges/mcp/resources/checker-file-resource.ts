import { readBlobBytes } from "../../../downloads/read-blob-bytes.ts";
import {
  checkerRevisionFile,
  PROGRAM_MEDIA_TYPE,
} from "../../../verifier-contracts/checker-revision-file.ts";
import { viewerOf } from "../../../visibility/viewer.ts";
import { resourceBytes } from "./resource-bytes.ts";
import type { ResourceTemplate } from "./resource-template.ts";

/**
 * `svc://problem-revisions/{problem_revision_id}/checkers/{stage_key}/{filename}`: the revision
 * file `checkers/<stage_key>/<filename>` (spec 4.1), the program of the stage's current script
 * checker, with `_meta: {content_hash, size_bytes, verifier_implementation_id}`. Programs are at
 * most 256 KiB, so they are always inline.
 */
export const checkerFileResource: ResourceTemplate = {
  name: "problem-revision-checker",
  uriTemplate: "svc://problem-revisions/{problem_revision_id}/checkers/{stage_key}/{filename}",
  title: "Checker program of a problem revision",
  description:
    "Revision file checkers/<stage_key>/<filename>: the exact program of the script checker that runs the stage " +
    "of the revision's Contract now (the same bytes as GET /api/verifier-implementations/{id}/program).",
  async read(context, uri, variables) {
    const file = await checkerRevisionFile(
      context.services.sql,
      viewerOf(context.principal),
      variables.problem_revision_id ?? "",
      variables.stage_key ?? "",
      variables.filename ?? "",
    );
    const bytes = await readBlobBytes(context.services.blobs, file.content_hash);
    return [
      resourceBytes(uri, bytes, PROGRAM_MEDIA_TYPE, {
        content_hash: file.content_hash,
        size_bytes: file.size_bytes,
        verifier_implementation_id: file.verifier_implementation_id,
      }),
    ];
  },
};

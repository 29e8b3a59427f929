import { ServiceError } from "../core/errors/service-error.ts";
import type { Services } from "../core/services/services.ts";
import type { Viewer } from "../visibility/viewer.ts";
import { readDraftSlice } from "./draft-files.ts";
import { type DraftFile, findDraft } from "./work-draft.ts";

/** The most bytes one read_work_draft_file call returns (and the default). */
export const MAX_DRAFT_READ_BYTES = 256 * 1024;

export type ReadDraftFileResult =
  | { draft_id: string; version: string; files: DraftFile[] }
  | {
      draft_id: string;
      version: string;
      path: string;
      content_hash: string;
      size_bytes: number;
      offset: number;
      content_base64: string;
      next_offset: number | null;
    };

/**
 * read_work_draft_file (spec 4.1): without `path`, the draft's files; with `path`, at most `limit`
 * bytes of that file from `offset` as base64, with its content hash, size and the `next_offset`
 * to continue from (null at the end).
 */
export async function readWorkDraftFile(
  services: Services,
  viewer: Viewer,
  input: {
    draft_id: string;
    path?: string | undefined;
    offset?: number | undefined;
    limit?: number | undefined;
  },
): Promise<ReadDraftFileResult> {
  const draft = await findDraft(services.sql, viewer, input.draft_id);
  const version = String(draft.version);
  if (input.path === undefined) return { draft_id: draft.id, version, files: draft.files };
  const file = draft.files.find((f) => f.path === input.path);
  if (!file) {
    throw new ServiceError(
      "not_found",
      `draft ${draft.id} has no file "${input.path}": call read_work_draft_file without path to list its files`,
      { draft_id: draft.id, path: input.path, field: "path" },
    );
  }
  const offset = input.offset ?? 0;
  if (offset > file.size_bytes) {
    throw new ServiceError(
      "invalid_input",
      `offset ${offset} is past the end of "${file.path}" (${file.size_bytes} bytes)`,
      { field: "offset", size_bytes: file.size_bytes },
    );
  }
  const limit = Math.min(input.limit ?? MAX_DRAFT_READ_BYTES, MAX_DRAFT_READ_BYTES);
  const end = Math.min(offset + limit, file.size_bytes);
  const bytes = await readDraftSlice(services.blobs, file, offset, end);
  return {
    draft_id: draft.id,
    version,
    path: file.path,
    content_hash: file.content_hash,
    size_bytes: file.size_bytes,
    offset,
    content_base64: Buffer.from(bytes).toString("base64"),
    next_offset: end < file.size_bytes ? end : null,
  };
}

import { join } from "node:path";
import type { PublishState } from "./publish-state.ts";
import { writeJsonAtomic } from "./publish-state.ts";

/** What `<dir>/.svc/upload.json` records about the last upload validated (spec 4.2). */
export interface UploadRecord {
  upload_id: string;
  plan_hash: string | null;
  content_hash: string;
  uploaded_at: string;
  valid: boolean;
}

export function uploadRecordPath(dir: string): string {
  return join(dir, ".svc", "upload.json");
}

/** Records the last upload, as `svc upload` and `svc draft` both do. */
export async function writeUploadRecord(dir: string, record: UploadRecord): Promise<void> {
  await writeJsonAtomic(uploadRecordPath(dir), record);
}

/**
 * The upload a `svc draft` run validated last: of the shards it took to validation (published,
 * validated or invalid; skipped ones were not sent), the one whose state changed last. Null when
 * the run validated nothing (every shard unchanged and skipped, or a stop before validation).
 */
export function lastValidatedUpload(state: PublishState, skipped: ReadonlySet<number>): UploadRecord | null {
  const validated = state.shards.filter(
    (s) =>
      !skipped.has(s.index) &&
      s.upload_id !== null &&
      (s.status === "published" || s.status === "validated" || s.status === "invalid"),
  );
  const last = validated
    .sort((a, b) => (a.updated_at < b.updated_at ? -1 : a.updated_at > b.updated_at ? 1 : 0))
    .at(-1);
  if (!last?.upload_id) return null;
  return {
    upload_id: last.upload_id,
    plan_hash: last.plan_hash,
    content_hash: last.content_hash,
    uploaded_at: last.updated_at,
    valid: last.status !== "invalid",
  };
}

import { createHash } from "node:crypto";
import { canonicalJson } from "@svc/app";
import type { ManagedWork } from "./managed-work.ts";

/**
 * The opaque snapshot of a piece of work that edits pass back as `expected_snapshot`: a digest of
 * everything get_work_management shows, `updated_at` and the effective visibility included, so it
 * changes whenever the details, the work's visibility or its Campaign's visibility change.
 */
export function workSnapshot(work: ManagedWork): string {
  return `wsn_${createHash("sha256").update(canonicalJson(work)).digest("base64url").slice(0, 32)}`;
}

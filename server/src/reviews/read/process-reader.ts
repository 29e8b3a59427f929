import type { Viewer } from "../../visibility/viewer.ts";
import type { LoadedReviewProcess } from "./load-review-process.ts";

/**
 * Who may read a ReviewProcess, and how much (docs/reviews.md, "Who reads what"):
 *
 * - `manager`: an administrator, or the owner of the subject's Problem (of the Campaign for a
 *   proposal): everything, reviewer identities included;
 * - `submitter`: the subject's author: the process and its results, never who reviewed;
 * - `reviewer`: someone who holds or held an assignment in it: the process skeleton, their own
 *   assignments, and the judgments of a node they submitted on once that node completed.
 *
 * Anyone else (an eligible reviewer who has not claimed included) reads the case instead, and
 * gets not_found here. The first role that applies wins.
 */
export const ProcessReaderRole = {
  manager: "manager",
  submitter: "submitter",
  reviewer: "reviewer",
} as const;
export type ProcessReaderRole = (typeof ProcessReaderRole)[keyof typeof ProcessReaderRole];

/** A reader of one process. */
export interface ProcessReader {
  role: ProcessReaderRole;
  userId: string;
}

/** The viewer's reading role on a loaded process, or null when they may not read it. */
export function processReaderOf(loaded: LoadedReviewProcess, viewer: Viewer): ProcessReader | null {
  const userId = viewer.userId;
  if (viewer.isAdministrator || loaded.managerUserId === userId) return { role: "manager", userId };
  if (loaded.process.subject_user_id === userId) return { role: "submitter", userId };
  if (loaded.assignments.some((a) => a.reviewer_user_id === userId)) return { role: "reviewer", userId };
  return null;
}

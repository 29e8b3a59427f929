import { Visibility as V, type Visibility } from "@svc/schemas";
import type { Viewer } from "./viewer.ts";

/** What access rules need to know about a piece of work. */
export interface WorkAccessFacts {
  owner_user_id: string;
  /** The effective visibility (for a Campaign's Problem, already restricted by the Campaign). */
  visibility: Visibility;
}

/** Whether the viewer manages the work: its owner, or an administrator. */
export function canManageWork(viewer: Viewer | null, work: { owner_user_id: string }): boolean {
  return viewer !== null && (viewer.isAdministrator || viewer.userId === work.owner_user_id);
}

/** Whether the viewer may read the work when they name it: anything not private, or work they manage. */
export function canReadWork(viewer: Viewer | null, work: WorkAccessFacts): boolean {
  return work.visibility !== V.private || canManageWork(viewer, work);
}

/**
 * Whether the work may be surfaced to the viewer unasked (search, listings, picks): listed
 * work, and the viewer's own. Administrators are not shown other owners' unlisted or private
 * work here; they reach it by naming it.
 */
export function canDiscoverWork(viewer: Viewer | null, work: WorkAccessFacts): boolean {
  return work.visibility === V.listed || (viewer !== null && viewer.userId === work.owner_user_id);
}

import type { ReviewEndings } from "./error-catalogue.ts";

/** Closed sets of review execution: processes, nodes and seats (spec 2.1, section 3). */

/** A process is open until its output node emits or a node's deadline passes with a seat open. */
export const ProcessStatus = { open: "open", finished: "finished" } as const;
export type ProcessStatus = (typeof ProcessStatus)[keyof typeof ProcessStatus];

/** Why a process finished: completed, or one of the catalogue's review endings (docs/errors.md). */
export const ProcessEndReason = {
  completed: "completed",
  reviewers_unavailable: "reviewers_unavailable",
} as const satisfies Record<"completed" | keyof typeof ReviewEndings, string>;
export type ProcessEndReason = (typeof ProcessEndReason)[keyof typeof ProcessEndReason];

/** A node of a process: pending -> open -> completed; pending -> skipped. */
export const NodeStatus = {
  pending: "pending",
  open: "open",
  completed: "completed",
  skipped: "skipped",
} as const;
export type NodeStatus = (typeof NodeStatus)[keyof typeof NodeStatus];

/** A seat taken by one reviewer: claimed -> submitted | declined | lapsed. */
export const AssignmentStatus = {
  claimed: "claimed",
  submitted: "submitted",
  declined: "declined",
  lapsed: "lapsed",
} as const;
export type AssignmentStatus = (typeof AssignmentStatus)[keyof typeof AssignmentStatus];

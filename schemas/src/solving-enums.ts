/** Closed sets of a participant's work: Attempts, Notes, Submissions (spec 4.1, 9.1). */

/** Where an Attempt is: `active` until end_attempt ends it. */
export const AttemptStatus = { active: "active", ended: "ended" } as const;
export type AttemptStatus = (typeof AttemptStatus)[keyof typeof AttemptStatus];

/**
 * How a participant ended an Attempt: `solved` (they believe the work is done), `partial` (some
 * progress worth continuing), `gave_up` (stopped without a result), `abandoned` (left without
 * judging it, for example a lost session).
 */
export const AttemptOutcome = {
  solved: "solved",
  partial: "partial",
  gave_up: "gave_up",
  abandoned: "abandoned",
} as const;
export type AttemptOutcome = (typeof AttemptOutcome)[keyof typeof AttemptOutcome];

/** Why a working Attempt id was not accepted on a read (spec 4.1). */
export const WorkingAttemptReason = {
  not_found: "not_found",
  not_yours: "not_yours",
  ended: "ended",
} as const;
export type WorkingAttemptReason = (typeof WorkingAttemptReason)[keyof typeof WorkingAttemptReason];

/** A working `note` while the Attempt is active, or the one `summary` end_attempt requires. */
export const NoteKind = { note: "note", summary: "summary" } as const;
export type NoteKind = (typeof NoteKind)[keyof typeof NoteKind];

/** A Submission is `active` until its owner withdraws it (write-once). */
export const SubmissionStatus = { active: "active", withdrawn: "withdrawn" } as const;
export type SubmissionStatus = (typeof SubmissionStatus)[keyof typeof SubmissionStatus];

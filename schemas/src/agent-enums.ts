/** Closed sets of connected agents: events, criteria changes, agent jobs (docs/agents.md). */

/**
 * The kinds of event the log holds (spec 6.1): a human review seat opened (seen by whoever may
 * claim it), a VerificationRun finished (its owner), a criteria change written (its user). A
 * kind's name never changes once shipped: subscriptions and stored cursors name it.
 */
export const EventKind = {
  seatOpened: "review.seat_opened",
  runFinished: "verification.run_finished",
  criteriaChanged: "criteria.changed",
} as const;
export type EventKind = (typeof EventKind)[keyof typeof EventKind];

/**
 * How an event subscription is delivered: POSTs to the subscriber's webhook, or MCP notifications
 * on an `events/stream` request the subscriber's agent holds open.
 */
export const EventDelivery = { webhook: "webhook", stream: "stream" } as const;
export type EventDelivery = (typeof EventDelivery)[keyof typeof EventDelivery];

/**
 * Why an `events/stream` request ended (its result's `ended`): the server is shutting down, the
 * reader fell too far behind, another stream took the subscription over, the subscription was
 * ended, the token stopped being valid. Reconnect with the result's `cursor` after any of them.
 */
export const StreamEndReason = {
  serverClosing: "server_closing",
  slowReader: "slow_reader",
  replaced: "replaced",
  unsubscribed: "unsubscribed",
  tokenRevoked: "token_revoked",
} as const;
export type StreamEndReason = (typeof StreamEndReason)[keyof typeof StreamEndReason];

/**
 * What published change altered what counts as correct for a user's work under way: a new
 * revision of a Problem they attempt, a new current implementation of a stage their Contract
 * runs, a revocation of one of their runs, an early release of sealed inputs they work on.
 */
export const CriteriaChangeKind = {
  problemRevised: "problem_revised",
  implementationCurrent: "implementation_current",
  runRevoked: "run_revoked",
  inputsReleased: "inputs_released",
} as const;
export type CriteriaChangeKind = (typeof CriteriaChangeKind)[keyof typeof CriteriaChangeKind];

/**
 * Work offered to a user's agents: an open review seat they may claim, a Problem they want
 * solved, an ended Attempt of theirs whose review named defects, to continue.
 */
export const AgentJobKind = {
  reviewSeat: "review_seat",
  solve: "solve",
  continuation: "continuation",
} as const;
export type AgentJobKind = (typeof AgentJobKind)[keyof typeof AgentJobKind];

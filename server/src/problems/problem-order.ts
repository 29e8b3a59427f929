/**
 * How search_problems orders its results (spec 4.1):
 *
 * - `priority`: highest `priority_weight` first (with a query: best match first, then priority);
 * - `random`: a shuffle seeded once per search, so every page of one cursor chain continues the
 *   same permutation and no Problem repeats or goes missing;
 * - `least_attempted`: fewest active Attempts first, then priority.
 *
 * Ties always fall back to the slug, so every order is total and pages never overlap.
 */
export const ProblemOrder = {
  priority: "priority",
  random: "random",
  least_attempted: "least_attempted",
} as const;
export type ProblemOrder = (typeof ProblemOrder)[keyof typeof ProblemOrder];

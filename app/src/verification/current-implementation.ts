/**
 * Which VerifierImplementation of a sandbox stage runs (spec 2.2): the service's runs and
 * `svc verify` choose the same way, from the list of the stage's implementations.
 */

/** An implementation's conformance status (spec 2.2 `conformance.status`). */
export const ConformanceStatus = { pending: "pending", passed: "passed", failed: "failed" } as const;
export type ConformanceStatus = (typeof ConformanceStatus)[keyof typeof ConformanceStatus];

/** What the choice reads of an implementation: the record from the database or a tool's summary. */
export interface ImplementationCandidate {
  version_number: number;
  /** A yanked implementation runs nothing new (a timestamp, or its ISO string). */
  yanked_at: Date | string | null;
  conformance: { status: ConformanceStatus };
}

/** The stage's implementation to run, and the one a run waits for. */
export interface ImplementationChoice<T> {
  /** The highest non-yanked version whose conformance passed; null when none passed. */
  current: T | null;
  /**
   * The highest non-yanked version above `current` (or above nothing) still awaiting its
   * conformance fixtures: a run waits for it rather than finishing early. Null when none.
   */
  pending: T | null;
}

/**
 * Chooses among one stage's implementations, in any order: `current` is the highest non-yanked
 * version whose conformance passed (there is no stored pointer), never a pending or failed one;
 * `pending` is the highest non-yanked pending version newer than `current`.
 */
export function currentImplementation<T extends ImplementationCandidate>(
  implementations: readonly T[],
): ImplementationChoice<T> {
  const live = implementations
    .filter((implementation) => implementation.yanked_at === null)
    .sort((a, b) => b.version_number - a.version_number);
  const current = live.find((implementation) => implementation.conformance.status === "passed") ?? null;
  const pending =
    live.find(
      (implementation) =>
        implementation.conformance.status === "pending" &&
        (current === null || implementation.version_number > current.version_number),
    ) ?? null;
  return { current, pending };
}

/** The choice for every stage of a Contract's implementations, by stage key. */
export function currentImplementations<T extends ImplementationCandidate & { stage_key: string }>(
  implementations: readonly T[],
): Map<string, ImplementationChoice<T>> {
  const byStage = new Map<string, T[]>();
  for (const implementation of implementations) {
    const list = byStage.get(implementation.stage_key) ?? [];
    list.push(implementation);
    byStage.set(implementation.stage_key, list);
  }
  const choices = new Map<string, ImplementationChoice<T>>();
  for (const [stageKey, list] of byStage) choices.set(stageKey, currentImplementation(list));
  return choices;
}

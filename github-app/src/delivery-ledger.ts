/**
 * The deliveries the App has taken, by `X-GitHub-Delivery` id: a redelivery of one already taken
 * (GitHub keeps the id when redelivering) does nothing new. Across restarts the check runs
 * themselves make handling idempotent (see publishCommit and checkCommit); a ledger spares the
 * work, and the one in PostgreSQL (postgresDeliveryLedger) does so across replicas.
 */
export interface DeliveryLedger {
  /**
   * Runs `handle` for a delivery seen for the first time. Otherwise `first` is false and `done`
   * is the first handling's promise when this process runs it, else already resolved.
   */
  take(id: string, handle: () => Promise<void>): Promise<{ first: boolean; done: Promise<void> }>;
  /** Releases what the ledger holds (a database pool); taken deliveries are not waited for. */
  close(): Promise<void>;
}

/** The ledger of one process, in memory, bounded: the oldest ids are forgotten first. */
export function memoryDeliveryLedger(capacity = 10_000): DeliveryLedger {
  const taken = new Map<string, Promise<void>>();
  return {
    async take(id, handle) {
      const seen = taken.get(id);
      if (seen) return { first: false, done: seen };
      const done = handle();
      taken.set(id, done);
      // A failed handling is forgotten, so a redelivery may try again.
      done.catch(() => taken.delete(id));
      if (taken.size > capacity) taken.delete(taken.keys().next().value!);
      return { first: true, done };
    },
    async close() {},
  };
}
